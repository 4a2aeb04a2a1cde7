/**
 * The lean reads (src/core/store/listing.ts, status.ts) answer as the full rows do: `cast status`,
 * `cast sessions` and `cast feed` read them instead of loading every session, so a difference is
 * a wrong count or a missing row. And the records and settle-verdict families (records.ts,
 * settle-verdicts.ts): a patch touches only its keys, a turn is judged once.
 */
import {describe, expect, it} from 'vitest'

import {inboxCandidates, listingKeys, recentTopLevelIds, sessionIdsInOrder} from '../../../src/core/store/listing.js'
import {addOwner} from '../../../src/core/store/ownership.js'
import {getSettleVerdict, putSettleVerdict} from '../../../src/core/store/settle-verdicts.js'
import {statusRows} from '../../../src/core/store/status.js'
import {HOUR, NOW, settled, useStore} from './fixture.js'

const f = useStore()
const DAY = 24 * HOUR
const old = () => settled({lastActivityAt: NOW - 30 * DAY})

/** Four top-level sessions (recent, old, old and pinned, old and owned) and a subagent of the recent one. */
function corpus(): {recent: string; stale: string; pinned: string; owned: string; child: string} {
  const recent = f.add('recent')
  const stale = f.add('stale', old())
  const pinned = f.add('pinned', old())
  const owned = f.add('owned', old())
  const child = f.add('child', settled({lastActivityAt: NOW - 2 * 60_000}), 'recent')
  f.store.tx(() => {
    f.store.patchRecords(pinned, {pinned: true})
    addOwner(f.store, owned, 'ana@example.com', 'me', NOW)
    f.store.reconcile(NOW)
  })
  return {child, owned, pinned, recent, stale}
}

describe('the lean reads', () => {
  it("list every session in loadSessions' order", () => {
    corpus()
    expect(sessionIdsInOrder(f.store)).toEqual(f.store.loadSessions().map((r) => r.id))
  })

  it('count for cast status what the full rows say', () => {
    corpus()
    const full = f.store.loadSessions()
    const lean = statusRows(f.store)

    const key = (r: {bucket: string | null; state: string | null; pinned: boolean; owners: readonly string[]; parentId: string | null}) =>
      JSON.stringify([r.bucket, r.state, r.pinned, [...r.owners].sort(), r.parentId])
    expect(lean.map(key).sort()).toEqual(
      full
        .map((r) => key({bucket: r.bucket, owners: r.records.owners, parentId: r.parentId, pinned: r.records.pinned, state: r.state}))
        .sort(),
    )
  })

  it('give the listing the fields of the full rows it filters and sorts on', () => {
    corpus()
    const full = new Map(f.store.loadSessions().map((r) => [r.id, r]))
    for (const k of listingKeys(f.store, 'me')) {
      const r = full.get(k.id)!
      expect({bucket: k.bucket, owners: k.records.owners, pinned: k.records.pinned, state: k.state}).toEqual({
        bucket: r.bucket,
        owners: r.records.owners,
        pinned: r.records.pinned,
        state: r.state,
      })
      expect(k.facts.lastActivityAt).toBe(r.facts.lastActivityAt)
    }
  })

  it('keep in the inbox what is recent, pinned or owned, and count the rest by runner', () => {
    const c = corpus()
    const {ids, olderByRunner} = inboxCandidates(f.store, NOW - DAY)

    expect(ids).toEqual(expect.arrayContaining([c.recent, c.pinned, c.owned]))
    expect(ids).not.toContain(c.stale)
    expect(olderByRunner.get('me@example.com')).toBe(1)
  })

  it('give cast feed the top-level sessions active since a time, newest first', () => {
    const c = corpus()
    expect([...recentTopLevelIds(f.store, NOW - DAY)]).toEqual([c.recent])
    expect([...recentTopLevelIds(f.store, 0)].slice(0, 1)).toEqual([c.recent])
    expect([...recentTopLevelIds(f.store, 0)]).not.toContain(c.child)
  })
})

describe('records', () => {
  it('change only the keys a patch names, and read back as written', () => {
    const a = f.add('a')
    f.store.patchRecords(a, {pinned: true, snoozedUntil: NOW + HOUR})
    f.store.patchRecords(a, {declaration: {at: NOW, status: 'working', text: 'parsing', turnIndex: 1}})

    expect(f.store.getRecordsRow(a)).toMatchObject({
      declaration: {at: NOW, status: 'working', text: 'parsing', turnIndex: 1},
      pinned: true,
      snoozedUntil: NOW + HOUR,
    })
    expect(f.store.getRecordsRow(f.add('b'))).toEqual({})
  })
})

describe('settle verdicts', () => {
  it('judge a turn once: the first outcome stays, a failure included', () => {
    const a = f.add('a')
    const failed = {at: NOW, error: 'timed out', ms: 30_000, sessionId: a, turnIndex: 1, verdict: null, why: null}

    expect(putSettleVerdict(f.store, failed)).toBe(true)
    expect(putSettleVerdict(f.store, {...failed, error: null, verdict: 'delivered', why: 'done'})).toBe(false)
    expect(getSettleVerdict(f.store, a, 1)).toEqual(failed)
    expect(getSettleVerdict(f.store, a, 2)).toBeNull()
  })
})
