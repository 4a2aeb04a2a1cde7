/**
 * A machine whose clock is off: preloaded (NODE_OPTIONS=--require) into a simulated machine's
 * cast processes, it moves Date.now() and `new Date()` by CAST_TEST_CLOCK_OFFSET_MS, the way a
 * host with a wrong clock reads time. Real time keeps running (unlike CAST_NOW, which freezes it).
 */
'use strict'
const off = Number(process.env.CAST_TEST_CLOCK_OFFSET_MS || 0)
if (off) {
  const RealDate = Date
  const realNow = RealDate.now
  class SkewedDate extends RealDate {
    constructor(...a) {
      if (a.length === 0) super(realNow() + off)
      else super(...a)
    }

    static now() {
      return realNow() + off
    }
  }

  globalThis.Date = SkewedDate
}
