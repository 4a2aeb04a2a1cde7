/**
 * The leases family (src/core/store/leases.ts) on a real store: a lease is taken over only when
 * its holder is stale (or it is the same holder again), a token makes the holder that token and
 * not merely its pid, and a heartbeat from the future is clamped so it goes stale like any other.
 */
import {describe, expect, it} from 'vitest'

import type {Lease} from '../../../src/core/store/store.js'
import {MINUTE, NOW, useStore} from './fixture.js'

const f = useStore()
const STALE_AFTER = MINUTE
const staleAt = (now: number) => (l: Lease) => now - l.heartbeatAt > STALE_AFTER
const me = {host: 'box', pid: 100}
const you = {host: 'box', pid: 200}

describe('leases', () => {
  it('is taken over only when its holder went stale', () => {
    expect(f.store.acquireLease('ingester', me, NOW, staleAt(NOW))).toBe(true)
    expect(f.store.acquireLease('ingester', you, NOW + STALE_AFTER, staleAt(NOW + STALE_AFTER))).toBe(false)
    expect(f.store.getLease('ingester', NOW + STALE_AFTER)?.pid).toBe(me.pid)

    expect(f.store.acquireLease('ingester', you, NOW + STALE_AFTER + 1, staleAt(NOW + STALE_AFTER + 1))).toBe(true)
    expect(f.store.getLease('ingester', NOW + STALE_AFTER + 1)).toMatchObject({heartbeatAt: NOW + STALE_AFTER + 1, pid: you.pid})
  })

  it('is taken again by its own holder at any time, and a heartbeat keeps it fresh', () => {
    f.store.acquireLease('ingester', me, NOW, staleAt(NOW))
    expect(f.store.acquireLease('ingester', me, NOW + 1, () => false)).toBe(true)

    expect(f.store.heartbeatLease('ingester', me.pid, NOW + STALE_AFTER)).toBe(true)
    expect(f.store.acquireLease('ingester', you, NOW + 2 * STALE_AFTER, staleAt(NOW + 2 * STALE_AFTER))).toBe(false)
    expect(f.store.heartbeatLease('ingester', you.pid, NOW)).toBe(false)
  })

  it('with a token, answers to that token only: the same pid elsewhere neither beats, holds nor releases it', () => {
    f.store.acquireLease('ingester', me, NOW, staleAt(NOW), {token: 't1'})

    expect(f.store.holdsLease('ingester', me.pid, 't1')).toBe(true)
    expect(f.store.holdsLease('ingester', me.pid, 't2')).toBe(false)
    expect(f.store.heartbeatLease('ingester', me.pid, NOW + 1, undefined, 't2')).toBe(false)
    f.store.releaseLease('ingester', me.pid, 't2')
    expect(f.store.getLease('ingester', NOW + 1)?.info).toEqual({token: 't1'})

    expect(f.store.heartbeatLease('ingester', me.pid, NOW + 1, {token: 't1', files: 3}, 't1')).toBe(true)
    expect(f.store.getLease('ingester', NOW + 1)?.info).toEqual({files: 3, token: 't1'})
    f.store.releaseLease('ingester', me.pid, 't1')
    expect(f.store.getLease('ingester', NOW + 1)).toBeNull()
  })

  it('clamps a heartbeat from the future to now and writes it back, so a dead holder goes stale', () => {
    f.store.acquireLease('ingester', me, NOW + 24 * 60 * MINUTE, () => true)

    expect(f.store.getLease('ingester', NOW)).toMatchObject({heartbeatAt: NOW, startedAt: NOW})
    // Written back: a later reading does not see the future stamp again.
    expect(f.store.getLease('ingester', NOW + 2 * STALE_AFTER)?.heartbeatAt).toBe(NOW)
    expect(f.store.acquireLease('ingester', you, NOW + 2 * STALE_AFTER, staleAt(NOW + 2 * STALE_AFTER))).toBe(true)
  })
})
