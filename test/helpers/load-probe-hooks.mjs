/** The loader hook of load-probe.mjs: each module's URL to CAST_LOAD_PROBE, as it loads. */
import fs from 'node:fs'

export async function load(url, context, next) {
  const file = process.env.CAST_LOAD_PROBE
  if (file) fs.appendFileSync(file, url + '\n')
  return next(url, context)
}
