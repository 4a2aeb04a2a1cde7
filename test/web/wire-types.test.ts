/**
 * The page's JSON shapes are the server's: src/lib/web/data.ts builds PageListing and
 * SessionDetail, the page (src/web) reads src/core/model/wire.ts's PageListingJson and
 * DetailJson. `npm run typecheck` fails when the two drift (a field added to one side only, or
 * a field typed looser on the server than the page expects); the run-time half checks the
 * served page imports the CLI's sanitizer, not a copy.
 */
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, expectTypeOf, it} from 'vitest'

import {oneLine, visible} from '../../src/core/model/sanitize.js'
import {STREAM_EVENTS, type DetailJson, type PageListingJson, type StreamEvent} from '../../src/core/model/wire.js'
import type {listingHead, PageListing, SessionDetail} from '../../src/lib/web/data.js'

/** true when each type is assignable to the other, key for key, deeply (a field one side lacks or types looser is false). */
type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false

const ROOT = path.resolve(import.meta.dirname, '../..')

describe('the wire shapes the page shares with the server', () => {
  it('the server builds exactly the shapes the page reads', () => {
    // The stream's listing, and the first paint's head of it (listingHead), which adds head and sections.
    expectTypeOf<Same<PageListing, Omit<PageListingJson, 'head' | 'sections'>>>().toEqualTypeOf<true>()
    expectTypeOf<Same<ReturnType<typeof listingHead>, PageListingJson>>().toEqualTypeOf<true>()
    expectTypeOf<Same<SessionDetail, DetailJson>>().toEqualTypeOf<true>()
    expectTypeOf<Same<SessionDetail, Omit<DetailJson, 'screen_dialog'>>>().toEqualTypeOf<false>()
    expectTypeOf<StreamEvent>().toEqualTypeOf<'snapshot' | 'transition' | 'listing'>()
    expect([...STREAM_EVENTS].sort()).toEqual(['listing', 'snapshot', 'transition'])
  })

  it('the page has no sanitizer of its own: dist/web/dom.js imports wire.js, the CLI build of the same source', async () => {
    const dom = fs.readFileSync(path.join(ROOT, 'dist/web/dom.js'), 'utf8')
    expect(dom).toMatch(/from '\.\/wire\.js'/)
    expect(dom).not.toMatch(/\\u202A|\\u0000/)
    // The file the browser loads behaves as the CLI's sanitizer.
    const served = (await import(path.join(ROOT, 'dist/web/wire.js'))) as typeof import('../../src/core/model/wire.js')
    const hostile = 'a\u001b[31mb\r\nc\u202Ed\u0085\te'
    expect(served.oneLine(hostile)).toBe(oneLine(hostile))
    expect(served.visible(hostile)).toBe(visible(hostile))
    expect(served.oneLine(hostile)).toBe('a^[[31mb c<U+202E>d<U+0085> e')
  })
})
