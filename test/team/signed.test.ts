/**
 * Signed actions on a real PostgreSQL, tried as an attacker would (docs/team.md "Keys and signed
 * actions"): the database's superuser forges rows in cast_team.actions directly (no signature, a
 * key of its own, arguments changed after signing, a replayed request, an expired one, another
 * key swapped onto the requester's machine row, another identity) and wakes the executing
 * machine. The machine refuses each with its reason and nothing reaches the agent; the genuine
 * request, signed by a machine it trusts, is carried out once. Also: trust, untrust and rotation
 * from the CLI, and argument values that try to become options.
 */
import crypto from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {castId} from '../../src/core/model/ids.js'
import {machineKey} from '../../src/lib/team/keys.js'
import {payloadOf, signPayload} from '../../src/lib/team/protocol.js'
import {userTexts} from '../fakes/agents.js'
import {json, killStarted, makeHome} from '../helpers/cli.js'
import {type Machine, makeMachine, until} from './helpers.js'
import {type Cluster, startCluster} from './pg.js'

let cluster: Cluster
let a: Machine
let b: Machine
const session = '5e1f0000-1111-4111-8111-111111111111'
const id = castId('claude_code', session)

/** The team schema, created by the admin (the database owner) as `cast team join` would. */
async function migrateAsAdmin(c: Cluster): Promise<void> {
  const pg = (await import('pg')).default
  const {migrateTeam} = await import('../../src/core/store/team/schema.js')
  const pool = new pg.Pool({connectionString: c.adminUrl, max: 1})
  const client = await pool.connect()
  try {
    await migrateTeam(client)
  } finally {
    client.release()
    await pool.end()
  }
}

beforeAll(async () => {
  cluster = await startCluster()
  await migrateAsAdmin(cluster)
  a = await makeMachine(cluster, 'host-a', 'alf@example.com', {trust: false})
  b = await makeMachine(cluster, 'host-b', 'bea@example.com', {trust: false})
  a.addSession(session, {prompt: 'Plan the migration', settled: true})
  await a.startDaemon()
  // Bea owns the session on A: she may act on it (the executor checks A's own store).
  await until('the session in A', async () => (await a.cast(['own', id, 'bea@example.com'])).code === 0)
  // Where the session runs, as the team store says it (what the requester looks up).
  await cluster.sql(
    `INSERT INTO cast_team.sessions (id, device, runner, owners, summary, epoch, local_seq)
     VALUES ($1, 'host-a', 'alf@example.com', '{bea@example.com}', jsonb_build_object('id', $1::text, 'native_id', $2::text), 'e', 1)
     ON CONFLICT (id) DO NOTHING`,
    [id, session],
  )
}, 180_000)

afterAll(async () => {
  await a?.stopDaemon().catch(() => {})
  killStarted()
  await cluster?.destroy()
  a?.h.cleanup()
  b?.h.cleanup()
}, 60_000)

const texts = (): string[] => userTexts(a.h.home, a.project, session)

/** A row written straight into cast_team.actions by the superuser, then the executing machine woken. */
async function forge(row: {
  uid?: string
  verb?: string
  args?: Record<string, unknown>
  requested_by?: string
  requested_from?: string
  expires_at?: number
  sig?: string | null
}): Promise<{status: string; result: {error?: string; exit?: number} | null}> {
  const r = await cluster.sql(
    `INSERT INTO cast_team.actions (uid, device, session_id, verb, args, requested_by, requested_from, expires_at, sig)
     VALUES ($1, 'host-a', $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      row.uid ?? crypto.randomUUID(),
      id,
      row.verb ?? 'send',
      JSON.stringify(row.args ?? {message: 'FORGED'}),
      row.requested_by ?? 'bea@example.com',
      row.requested_from ?? 'host-b',
      new Date(row.expires_at ?? Date.now() + 60_000),
      row.sig === undefined ? null : row.sig,
    ],
  )
  await cluster.sql(`SELECT pg_notify('cast_actions', 'host-a')`)
  const actionId = r[0]!.id
  return until('the forged action settled', async () => {
    const s = (await cluster.sql('SELECT status, result FROM cast_team.actions WHERE id = $1', [actionId]))[0]!
    return s.status === 'delivered' || s.status === 'refused' ? (s as {status: string; result: {error?: string}}) : null
  })
}

/** Fields signed with `home`'s key, as a requester would sign them. */
function signedBy(
  home: string,
  f: {uid?: string; verb?: string; args?: Record<string, unknown>; requested_by?: string; expires_at?: number},
): {uid: string; verb: string; args: Record<string, unknown>; requested_by: string; expires_at: number; sig: string} {
  const x = {
    args: f.args ?? {message: 'FORGED'},
    device: 'host-a',
    expiresAt: f.expires_at ?? Date.now() + 60_000,
    requestedBy: f.requested_by ?? 'bea@example.com',
    requestedFrom: 'host-b',
    sessionId: id,
    uid: f.uid ?? crypto.randomUUID(),
    verb: f.verb ?? 'send',
  }
  return {
    args: x.args,
    expires_at: x.expiresAt,
    requested_by: x.requestedBy,
    sig: signPayload(payloadOf(x), machineKey(home).privateKey),
    uid: x.uid,
    verb: x.verb,
  }
}

describe('signed actions', () => {
  it('an untrusted machine is refused; once trusted, its signed send is carried out once', async () => {
    const keys = json(await a.cast(['team', 'keys', '--json']))
    expect(keys.keys.find((k: {device: string}) => k.device === 'host-b')).toMatchObject({status: 'new', who: 'bea@example.com'})
    const before = await b.cast(['send', id.slice(0, 8), 'Not yet', '--json'])
    expect(before.code).toBe(5)
    expect(before.stderr).toMatch(/does not trust host-b's key/)
    // The fingerprint must match when given: a wrong one trusts nothing.
    const wrong = await a.cast(['team', 'trust', 'host-b', '--fingerprint', 'SHA256:AAAA', '--json'])
    expect(wrong.code).toBe(5)
    const trust = await a.cast(['team', 'trust', 'host-b', '--json'])
    expect(trust.code, trust.stderr).toBe(0)
    expect(json(trust)).toMatchObject({device: 'host-b', fingerprint: machineKey(b.h.castHome).fingerprint, who: 'bea@example.com'})
    const sent = await b.cast(['send', id.slice(0, 8), 'Use the staging database', '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(json(sent)).toMatchObject({device: 'host-a', status: 'delivered'})
    await until('the message in the transcript', async () => texts().includes('Use the staging database'))
    expect(texts()).not.toContain('Not yet')
  })

  it("the superuser's forged rows are refused with their reason, and nothing reaches the agent", async () => {
    const mallory = makeHome('mallory@example.com')
    try {
      const genuine = (await cluster.sql(`SELECT * FROM cast_team.actions WHERE status = 'delivered' ORDER BY id LIMIT 1`))[0]!
      const cases: [string, Parameters<typeof forge>[0], RegExp][] = [
        ['no signature', {sig: null}, /not signed/],
        ['a key of its own', {...signedBy(mallory.castHome, {})}, /signature does not match host-b's trusted key/],
        [
          'arguments changed after signing',
          {...signedBy(b.h.castHome, {args: {message: 'harmless'}}), args: {message: 'FORGED'}},
          /signature does not match/,
        ],
        [
          'the genuine request replayed (its row deleted, a copy inserted)',
          {
            args: genuine.args as Record<string, unknown>,
            expires_at: (genuine.expires_at as Date).getTime(),
            requested_by: String(genuine.requested_by),
            sig: String(genuine.sig),
            uid: String(genuine.uid),
          },
          /carried out here before/,
        ],
        ['expired', {...signedBy(b.h.castHome, {expires_at: Date.now() - 120_000})}, /expired/],
        [
          'another identity signed for by the trusted key',
          {...signedBy(b.h.castHome, {requested_by: 'alf@example.com'}), requested_by: 'alf@example.com'},
          /trusted as bea@example\.com's/,
        ],
        ['own {"who":"--help"}, signed', {...signedBy(b.h.castHome, {args: {who: '--help'}, verb: 'own'})}, /must be an identity/],
        [
          'send {"if":"--help"}, signed',
          {...signedBy(b.h.castHome, {args: {if: '--help', message: 'FORGED'}, verb: 'send'})},
          /"if" must be STATE/,
        ],
      ]
      for (const [what, row, why] of cases) {
        if (what.startsWith('the genuine')) await cluster.sql('DELETE FROM cast_team.actions WHERE id = $1', [genuine.id])
        const r = await forge(row)
        expect(r.status, what).toBe('refused')
        expect(r.result?.error, what).toMatch(why)
      }

      // A key swapped onto B's machine row, and a request signed with it: refused, and shown as changed.
      await cluster.sql(`UPDATE cast_team.machines SET pubkey = $1 WHERE device = 'host-b'`, [machineKey(mallory.castHome).pubkey])
      const swapped = await forge({...signedBy(mallory.castHome, {})})
      expect(swapped.result?.error).toMatch(/host-b's key changed since this machine trusted it/)
      const keys = json(await a.cast(['team', 'keys', '--json']))
      expect(keys.keys.find((k: {device: string}) => k.device === 'host-b')).toMatchObject({status: 'changed'})
      // Trusting again pins what the server has now: the admin of the database could have put it
      // there, which is why the fingerprint is checked with its owner first.
      await cluster.sql(`UPDATE cast_team.machines SET pubkey = $1 WHERE device = 'host-b'`, [machineKey(b.h.castHome).pubkey])

      const own = json(await a.cast(['owners', id, '--json']))
      expect(JSON.stringify(own)).not.toContain('--help')
      expect(texts().filter((t) => t === 'FORGED' || t === 'harmless')).toEqual([])
      expect(texts().filter((t) => t === 'Use the staging database')).toHaveLength(1)
    } finally {
      mallory.cleanup()
    }
  })

  it('rotation and revocation: a rotated key is refused until trusted again; an untrusted machine is refused', async () => {
    const rotated = json(await b.cast(['team', 'keys', '--rotate', '--json']))
    expect(rotated.rotated).toBe(true)
    expect(rotated.fingerprint).toBe(machineKey(b.h.castHome).fingerprint)
    const refused = await b.cast(['send', id.slice(0, 8), 'After rotation', '--json'])
    expect(refused.code).toBe(5)
    expect(refused.stderr).toMatch(/key changed since this machine trusted it/)
    const keys = json(await a.cast(['team', 'keys', '--json']))
    expect(keys.keys.find((k: {device: string}) => k.device === 'host-b')).toMatchObject({
      fingerprint: rotated.fingerprint,
      status: 'changed',
    })
    expect((await a.cast(['team', 'trust', 'host-b', '--fingerprint', rotated.fingerprint])).code).toBe(0)
    const ok = await b.cast(['send', id.slice(0, 8), 'After rotation', '--json'])
    expect(ok.code, ok.stderr).toBe(0)

    expect((await a.cast(['team', 'untrust', 'host-b'])).code).toBe(0)
    expect((await a.cast(['team', 'untrust', 'host-b'])).code).toBe(3)
    const revoked = await b.cast(['send', id.slice(0, 8), 'After revocation', '--json'])
    expect(revoked.code).toBe(5)
    expect(revoked.stderr).toMatch(/does not trust host-b's key/)
    await until('the rotated message in the transcript', async () => texts().includes('After rotation'))
    expect(texts()).not.toContain('After revocation')
    expect(texts()).not.toContain('Not yet')
  })

  it("a publish that keeps failing never stops teammates' actions: the executor runs on its own loop", async () => {
    expect((await a.cast(['team', 'trust', 'host-b'])).code).toBe(0)
    // Every publish of A's now fails on the server; a new change waits in A's outbox.
    await cluster.sql('REVOKE EXECUTE ON FUNCTION cast_team.publish(text, text, jsonb, jsonb, integer, bigint) FROM cast_member')
    try {
      const other = '5e1f0001-1111-4111-8111-111111111111'
      a.addSession(other, {prompt: 'Another task', settled: true})
      await until('the new session in A', async () => (await a.cast(['state', 'show', castId('claude_code', other)])).code === 0)
      const sent = await b.cast(['send', id.slice(0, 8), 'While publishing fails', '--json'])
      expect(sent.code, sent.stderr).toBe(0)
      await until('the message in the transcript', async () => texts().includes('While publishing fails'))
      const status = json(await a.cast(['team', 'status', '--json']))
      expect(status.pending).toBeGreaterThan(0) // the change is still waiting: publishing did fail meanwhile
    } finally {
      await cluster.sql('GRANT EXECUTE ON FUNCTION cast_team.publish(text, text, jsonb, jsonb, integer, bigint) TO cast_member')
    }
  })
})
