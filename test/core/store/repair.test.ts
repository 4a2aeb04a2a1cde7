/**
 * `cast doctor --repair`'s store side (src/core/store/repair.ts) on real SQLite files: cast's own
 * records are copied into a new store, what the agents' files say is left to be re-read, the
 * damaged file is kept beside it, and a store with a damaged page gives back what can be read.
 */
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

import {addOwner} from '../../../src/core/store/ownership.js'
import {integrityOf, repairStore} from '../../../src/core/store/repair.js'
import {Store} from '../../../src/core/store/store.js'
import {NOW, useStore} from './fixture.js'

const f = useStore()

describe('repairing the store', () => {
  it("copies cast's own records, leaves the agents' files to be re-read, and keeps the old file", () => {
    const a = f.add('a')
    f.store.tx(() => {
      f.store.patchRecords(a, {pinned: true})
      addOwner(f.store, a, 'me', 'me', NOW)
      f.store.reconcile(NOW, [a])
    })
    f.store.saveFile({
      agent: 'claude_code',
      dev: 1,
      ino: 2,
      kind: 'transcript',
      holder: null,
      tailTried: null,
      fp: null,
      mtimeMs: NOW,
      offset: 10,
      parseErrors: 0,
      path: '/t/a.jsonl',
      readAt: NOW,
      size: 10,
      state: null,
    })
    f.store.close()
    expect(integrityOf(path.join(f.home, 'cast.db'))).toBe('ok')

    const report = repairStore(f.home, NOW)

    expect(report.damaged).toBe(path.join(f.home, 'cast.db.damaged-20261201T120000Z'))
    expect(fs.existsSync(report.damaged)).toBe(true)
    expect(report.lostTables).toEqual([])
    expect(report.copied).toMatchObject({owners: 1, records: 1, sessions: 1})
    expect(report.copied.files).toBeUndefined()
    const fresh = new Store(f.home)
    try {
      expect(fresh.loadSessions([a])[0]).toMatchObject({records: {pinned: true}})
      expect(fresh.countFiles()).toBe(0)
      expect(fresh.dueForCheck(NOW)).toEqual([a])
    } finally {
      fresh.close()
    }
  })

  it('loses only the rows on a damaged page, into a sound one', () => {
    const ids = Array.from({length: 300}, (_, i) => f.add(`session-${i}`))
    // One leaf page of the sessions table, from SQLite's own page map (the dbstat table).
    const leaves = f.store.db
      .prepare(`SELECT pageno, ncell FROM dbstat WHERE name = 'sessions' AND pagetype = 'leaf' ORDER BY pageno`)
      .all() as {pageno: number; ncell: number}[]
    const pageSize = f.store.db.pragma('page_size', {simple: true}) as number
    f.store.close()
    const file = path.join(f.home, 'cast.db')
    const bytes = fs.readFileSync(file)
    const {ncell: lost, pageno: page} = leaves[Math.floor(leaves.length / 2)]!
    bytes.fill(0xa5, (page - 1) * pageSize, page * pageSize)
    fs.writeFileSync(file, bytes)
    expect(integrityOf(file)).not.toBe('ok')

    const report = repairStore(f.home, NOW)

    expect(integrityOf(file)).toBe('ok')
    // Only the rows on the damaged page are lost.
    expect(lost).toBeGreaterThan(0)
    expect(report.copied.sessions).toBe(ids.length - lost)
    expect(report.unreadable.sessions).toBeGreaterThan(0)
    const fresh = new Store(f.home)
    try {
      expect(fresh.countSessions()).toBe(report.copied.sessions)
    } finally {
      fresh.close()
    }
  })
})
