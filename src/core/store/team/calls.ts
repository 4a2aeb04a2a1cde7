/**
 * The team store's write functions (team schema v2, src/core/store/team/schema-v2.ts), one
 * wrapper each. A member's role can do nothing else: every write goes through these, and the
 * server fills the caller's identity (`who`, `runner`, `requested_by`) from its binding in
 * cast_team.members. Signatures and keys are stored and returned as given.
 */
import type {Pool, PoolClient} from 'pg'

type Q = Pick<Pool | PoolClient, 'query'>

/** The caller's identity as the team's admin bound it, or null (not admitted). */
export async function whoAmIOnServer(c: Q): Promise<string | null> {
  const r = await c.query<{who: string | null}>('SELECT cast_team.me() AS who')
  return r.rows[0]?.who ?? null
}

/** The caller's bound identity (null: not admitted) and whether the caller is the team's admin. */
export async function membership(c: Q): Promise<{who: string | null; admin: boolean}> {
  const r = await c.query<{who: string | null; admin: boolean}>('SELECT cast_team.me() AS who, cast_team.is_admin() AS admin')
  const row = r.rows[0]! // a SELECT without FROM: always one row
  return {admin: row.admin === true, who: row.who ?? null}
}

/**
 * Register (or refresh) this device for the caller; returns the identity the server bound to the
 * caller's role. `pubkey`: base64 of the raw 32-byte Ed25519 public key, or null to keep the one
 * stored. Refused (42501) when the caller is not admitted or another member holds the name.
 */
export async function registerMachine(c: Q, device: string, pubkey: string | null, version: string | null = null): Promise<string> {
  const r = await c.query<{who: string}>('SELECT cast_team.register_machine($1, $2, $3) AS who', [device, pubkey, version])
  return String(r.rows[0]!.who) // a function call: always one row
}

/** Move this caller's sessions and queued actions from one of its devices to another of its own (registered) devices. */
export async function moveMachine(c: Q, from: string, to: string): Promise<number> {
  const r = await c.query<{n: number}>('SELECT cast_team.move_machine($1, $2) AS n', [from, to])
  return Number(r.rows[0]!.n)
}

/** Take one of the caller's devices off the team (its sessions, its name); how many sessions it had. */
export async function leaveMachine(c: Q, device: string): Promise<number> {
  const r = await c.query<{n: number}>('SELECT cast_team.leave_machine($1) AS n', [device])
  return Number(r.rows[0]!.n)
}

export interface PublishSession {
  readonly id: string
  readonly local_seq: number
  readonly summary: unknown
}

export interface PublishEvent {
  readonly local_seq: number
  readonly session_id: string
  readonly kind: string
  readonly device_at: number | null
  readonly payload: Record<string, unknown>
}

export interface Refusal {
  readonly kind: 'session' | 'event'
  readonly id?: string
  readonly local_seq?: number
  readonly why: string
}

export interface PublishReply {
  readonly refused: readonly Refusal[]
  /** Events at or below the device's last local_seq (sent again): not stored again. */
  readonly dropped: number
  readonly sessions: number
  readonly events: number
  /** The highest event seq this call stored, or null. */
  readonly seq: number | null
}

/** One publish call: every row checked on its own; the refused ones come back named. */
export async function publishRows(
  c: Q,
  a: {
    device: string
    epoch: string
    sessions: readonly PublishSession[]
    events: readonly PublishEvent[]
    pending: number
    nowMs: number | null
  },
): Promise<PublishReply> {
  const r = await c.query<{r: PublishReply}>('SELECT cast_team.publish($1, $2, $3::jsonb, $4::jsonb, $5, $6) AS r', [
    a.device,
    a.epoch,
    JSON.stringify(a.sessions),
    JSON.stringify(a.events),
    a.pending,
    a.nowMs === null ? null : Math.round(a.nowMs),
  ])
  const x = r.rows[0]!.r
  return {
    dropped: Number(x.dropped ?? 0),
    events: Number(x.events ?? 0),
    refused: x.refused ?? [],
    seq: x.seq ?? null,
    sessions: Number(x.sessions ?? 0),
  }
}

/** What a requester sends; the server adds requested_by (the caller's identity) and the id. */
export interface ActionRequest {
  /** Client-generated (crypto.randomUUID()); queueing the same uid again returns the same id. */
  readonly uid: string
  readonly device: string
  readonly sessionId: string
  readonly verb: string
  readonly args: Record<string, unknown>
  /** One of the caller's own devices. */
  readonly requestedFrom: string
  readonly expiresAt: Date | null
  /** Opaque here: stored and returned as given. */
  readonly sig: string | null
}

/** Queue an action; its id. Refused (42501) when requestedFrom is not the caller's device. */
export async function queueAction(c: Q, a: ActionRequest): Promise<number> {
  const r = await c.query<{id: number}>('SELECT cast_team.queue_action($1, $2, $3, $4, $5::jsonb, $6, $7, $8) AS id', [
    a.uid,
    a.device,
    a.sessionId,
    a.verb,
    JSON.stringify(a.args),
    a.requestedFrom,
    a.expiresAt,
    a.sig,
  ])
  return Number(r.rows[0]!.id)
}

/** A cast_team.actions row as the functions return it. */
export interface TeamAction {
  readonly id: number
  readonly uid: string | null
  readonly device: string
  readonly sessionId: string
  readonly verb: string
  readonly args: Record<string, unknown>
  /** The server's binding of the requesting role: not the client's word. */
  readonly requestedBy: string
  readonly requestedFrom: string
  readonly requestedAt: Date
  readonly expiresAt: Date | null
  readonly sig: string | null
  readonly status: 'queued' | 'running' | 'delivered' | 'refused'
  readonly result: Record<string, unknown> | null
}

export interface ActionDbRow {
  readonly id: number
  readonly uid: string | null
  readonly device: string
  readonly session_id: string
  readonly verb: string
  readonly args: Record<string, unknown> | null
  readonly requested_by: string
  readonly requested_from: string
  readonly requested_at: Date
  readonly expires_at: Date | null
  readonly sig: string | null
  readonly status: string
  readonly result: Record<string, unknown> | null
}

export function actionFromRow(r: ActionDbRow): TeamAction {
  return {
    args: r.args && typeof r.args === 'object' && !Array.isArray(r.args) ? r.args : {},
    device: String(r.device),
    expiresAt: r.expires_at ?? null,
    id: Number(r.id),
    requestedAt: r.requested_at,
    requestedBy: String(r.requested_by),
    requestedFrom: String(r.requested_from),
    result: r.result ?? null,
    sessionId: String(r.session_id),
    sig: r.sig ?? null,
    status: String(r.status) as TeamAction['status'],
    uid: r.uid ?? null,
    verb: String(r.verb),
  }
}

/** Claim up to `limit` actions queued for this (the caller's) device, oldest first: they are now running. */
export async function claimAction(c: Q, device: string, limit = 20): Promise<TeamAction[]> {
  const r = await c.query<ActionDbRow>('SELECT * FROM cast_team.claim_actions($1, $2)', [device, limit])
  return r.rows.map(actionFromRow).sort((a, b) => a.id - b.id)
}

/** Actions for this device a crash left running (a plain read). */
export async function runningActions(c: Q, device: string): Promise<TeamAction[]> {
  const r = await c.query<ActionDbRow>(`SELECT * FROM cast_team.actions WHERE device = $1 AND status = 'running' ORDER BY id`, [device])
  return r.rows.map(actionFromRow)
}

/** Report an action's outcome; false when it was already settled. Wakes the requester (cast_action_done). */
export async function reportAction(
  c: Q,
  id: number,
  status: 'delivered' | 'refused',
  result: Record<string, unknown> | null,
): Promise<boolean> {
  const r = await c.query<{ok: boolean}>('SELECT cast_team.report_action($1, $2, $3::jsonb) AS ok', [
    id,
    status,
    result === null ? null : JSON.stringify(result),
  ])
  return r.rows[0]!.ok === true
}

/** The team's admin binds a login role to one person. */
export async function admitMember(c: Q, role: string, who: string): Promise<void> {
  await c.query('SELECT cast_team.admit_member($1, $2)', [role, who])
}

/** The team's admin unbinds a role; its machines leave the team. How many machines it had. */
export async function removeMember(c: Q, role: string): Promise<number> {
  const r = await c.query<{n: number}>('SELECT cast_team.remove_member($1) AS n', [role])
  return Number(r.rows[0]!.n)
}

export interface MemberRow {
  readonly role: string
  readonly who: string
  readonly admittedBy: string
  readonly admittedAt: Date
  readonly devices: readonly string[]
}

export async function listMembers(c: Q): Promise<MemberRow[]> {
  const r = await c.query<{role: string; who: string; admitted_by: string; admitted_at: Date; devices: string[] | null}>(
    `SELECT p.role, p.who, p.admitted_by, p.admitted_at,
            ARRAY(SELECT m.device FROM cast_team.machines m WHERE m.role = p.role ORDER BY m.device) AS devices
       FROM cast_team.members p ORDER BY p.who`,
  )
  return r.rows.map((x) => ({
    admittedAt: x.admitted_at,
    admittedBy: String(x.admitted_by),
    devices: (x.devices ?? []).map(String),
    role: String(x.role),
    who: String(x.who),
  }))
}
