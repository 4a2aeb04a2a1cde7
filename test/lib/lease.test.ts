/**
 * The ingester lease held from another host whose clock runs ahead (src/lib/ingest/lease.ts,
 * src/core/store/leases.ts): a heartbeat stamped in the future is read as "now" the first time
 * this host sees it, then ages like any other and is taken over after LEASE_STALE_MS; a holder
 * that keeps beating (in its own future) keeps the lease.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Store} from '../../src/core/store/store.js'
import {INGESTER_LEASE, LEASE_STALE_MS, leaseIsLive} from '../../src/lib/ingest/lease.js'

const T = Date.parse('2026-12-01T12:00:00Z')
const HOUR = 3_600_000

describe('a lease stamped in the future by another host', () => {
  let dir: string
  let store: Store
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-lease-'))
    store = new Store(path.join(dir, 'cast'))
  })
  afterEach(() => {
    store.close()
    fs.rmSync(dir, {force: true, recursive: true})
  })

  const plant = (heartbeatAt: number): void => {
    store
      .q(`INSERT OR REPLACE INTO leases (name, pid, host, started_at, heartbeat_at, info) VALUES (?, 4242, 'far-away', ?, ?, '{}')`)
      .run(INGESTER_LEASE, heartbeatAt, heartbeatAt)
  }

  const take = (now: number): boolean =>
    store.acquireLease(INGESTER_LEASE, {host: os.hostname(), pid: process.pid}, now, (l) => !leaseIsLive(l, now))

  it('a dead holder is taken over once the documented staleness has passed since this host first saw it', () => {
    plant(T + HOUR)

    expect(leaseIsLive(store.getLease(INGESTER_LEASE, T), T)).toBe(true)
    expect(take(T + LEASE_STALE_MS - 1000)).toBe(false)
    expect(store.getLease(INGESTER_LEASE, T + LEASE_STALE_MS - 1000)).toMatchObject({heartbeatAt: T, host: 'far-away'})
    expect(take(T + LEASE_STALE_MS + 500)).toBe(true)
    expect(store.getLease(INGESTER_LEASE, T + LEASE_STALE_MS + 500)).toMatchObject({host: os.hostname(), pid: process.pid})
  })

  it('a stamp at the edge of SQLite integers (past what a JavaScript number holds exactly) is taken over too', () => {
    store
      .q(`INSERT OR REPLACE INTO leases (name, pid, host, started_at, heartbeat_at, info) VALUES (?, 4242, 'far-away', ?, ?, '{}')`)
      .run(INGESTER_LEASE, 9_223_372_036_854_775_807n, 9_223_372_036_854_775_807n)

    expect(take(T)).toBe(false)
    expect(take(T + LEASE_STALE_MS + 500)).toBe(true)
  })

  it('a live holder that keeps beating in its own future keeps the lease', () => {
    for (let s = 0; s <= 3 * LEASE_STALE_MS; s += 1000) {
      plant(T + HOUR + s)
      expect(take(T + s)).toBe(false)
    }
  })
})
