/**
 * Spawns and the team outbox (src/core/store/spawns.ts, outbox.ts) on a real store: the spawn
 * tree's caps (depth and size) hold, a dropped reservation gives its slot back, a linked spawn
 * gets its parent and label; the outbox queues nothing until the store joins a team, then queues
 * every change in order, forgets only what the server acknowledged, and runs an action once.
 */
import {describe, expect, it} from 'vitest'

import {
  ackOutbox,
  claimAction,
  countOutbox,
  doneAction,
  finishAction,
  markJoined,
  markLeft,
  markReported,
  pendingOutbox,
  seenRequest,
  teamJoin,
  unreportedActions,
} from '../../../src/core/store/outbox.js'
import {addOwner} from '../../../src/core/store/ownership.js'
import {dropSpawn, getSpawn, linkSpawn, type NewSpawn, reserveSpawn, spawnOf, treeSize} from '../../../src/core/store/spawns.js'
import {MINUTE, NOW, useStore} from './fixture.js'

const f = useStore()
const child = (parentId: string | null, label: string | null = null): NewSpawn => ({
  agent: 'claude_code',
  cwd: '/src/app',
  label,
  mode: 'tmux',
  parentId,
  prompt: 'write the tests',
  sessionId: null,
  spawnedAt: NOW,
  spawnedBy: 'me',
})

describe('spawns', () => {
  it('refuses a spawn deeper than the cap below the root', () => {
    let parent = f.add('root')
    for (let depth = 1; depth <= 3; depth++) {
      const r = reserveSpawn(f.store, child(parent))
      if (r.kind !== 'ok') throw new Error(`refused at depth ${depth}: ${r.kind}`)
      expect(r.spawn.depth).toBe(depth)
      parent = f.add(`child-${depth}`)
      linkSpawn(f.store, r.spawn.id, parent, NOW)
    }

    expect(reserveSpawn(f.store, child(parent))).toEqual({depth: 4, kind: 'too_deep'})
  })

  it('counts every spawn of a tree, finished or not, against its size; a dropped one gives its slot back', () => {
    const root = f.add('root')
    const caps = {maxDepth: 3, maxSize: 2}
    const one = reserveSpawn(f.store, child(root), caps)
    const two = reserveSpawn(f.store, child(root), caps)
    expect([one.kind, two.kind]).toEqual(['ok', 'ok'])
    expect(reserveSpawn(f.store, child(root), caps)).toEqual({kind: 'tree_full', rootId: root, size: 2})

    if (two.kind === 'ok') dropSpawn(f.store, two.spawn.id)
    expect(treeSize(f.store, root)).toBe(1)
    expect(reserveSpawn(f.store, child(root), caps).kind).toBe('ok')
  })

  it('links the session it started: parent, label and a running spawn record', () => {
    const root = f.add('root')
    const r = reserveSpawn(f.store, child(root, 'tests'))
    if (r.kind !== 'ok') throw new Error(r.kind)
    const kid = f.add('kid')

    linkSpawn(f.store, r.spawn.id, kid, NOW + MINUTE)

    expect(spawnOf(f.store, kid)).toMatchObject({id: r.spawn.id, parentId: root, rootId: root, status: 'running'})
    expect(f.row(kid).parentId).toBe(root)
    expect(f.row(kid).labels).toEqual({me: 'tests'})
    // A running spawn is not a reservation to give back.
    dropSpawn(f.store, r.spawn.id)
    expect(getSpawn(f.store, r.spawn.id)?.status).toBe('running')
  })
})

describe('the team outbox', () => {
  const join = {epoch: 'e1', joinedAt: NOW, name: 'crew'}

  it('queues nothing before the store joins a team', () => {
    const a = f.add('a')
    addOwner(f.store, a, 'me', 'me', NOW)

    expect(teamJoin(f.store)).toBeNull()
    expect(countOutbox(f.store)).toBe(0)
  })

  it('queues each known session once on joining, then every change in order', () => {
    const a = f.add('a')
    const b = f.add('b')

    expect(markJoined(f.store, join)).toBe(2)
    expect(markJoined(f.store, join)).toBe(0)
    expect(teamJoin(f.store)).toEqual(join)

    f.store.tx(() => addOwner(f.store, b, 'you', 'me', NOW + 1))
    f.store.tx(() => {
      f.store.patchRecords(a, {killedAt: NOW + 2})
      f.store.reconcile(NOW + 2, [a])
    })

    const rows = pendingOutbox(f.store)
    expect(rows.slice(0, 2).map((r) => [r.kind, r.sessionId])).toEqual([
      ['summary', a],
      ['summary', b],
    ])
    expect(rows.map((r) => r.kind)).toEqual(expect.arrayContaining(['owners', 'kill', 'transition']))
    expect(rows.findIndex((r) => r.kind === 'owners')).toBeLessThan(rows.findIndex((r) => r.kind === 'kill'))
    const seqs = rows.map((r) => r.seq)
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
    expect(pendingOutbox(f.store, 1)).toEqual(rows.slice(0, 1))
  })

  it('forgets only the rows the server acknowledged, and everything on leaving', () => {
    f.add('a')
    f.add('b')
    markJoined(f.store, join)
    const [first, second] = pendingOutbox(f.store)

    ackOutbox(f.store, first!.seq)
    expect(pendingOutbox(f.store).map((r) => r.seq)).toEqual([second!.seq])

    expect(markLeft(f.store)).toBe(1)
    expect(teamJoin(f.store)).toBeNull()
    f.add('c')
    expect(countOutbox(f.store)).toBe(0)
  })

  it("carries out a teammate's action once, and remembers its result until reported", () => {
    expect(claimAction(f.store, 7, NOW, 'req-1')).toBe(true)
    expect(claimAction(f.store, 7, NOW + 1, 'req-1')).toBe(false)
    expect(claimAction(f.store, 8, NOW + 1, 'req-1')).toBe(false)
    expect(seenRequest(f.store, 'req-1')).toBe(true)
    expect(unreportedActions(f.store)).toEqual([])

    finishAction(f.store, 7, 'delivered', {pane: '%3'}, NOW + 2)
    expect(doneAction(f.store, 7)).toEqual({actionId: 7, reported: false, result: {pane: '%3'}, status: 'delivered'})
    expect(unreportedActions(f.store).map((d) => d.actionId)).toEqual([7])

    markReported(f.store, 7)
    expect(unreportedActions(f.store)).toEqual([])
  })
})
