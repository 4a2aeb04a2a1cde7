/**
 * What one machine asks another to do, as data both sides agree on: the verbs, the arguments each
 * takes (validated by kind, so no value can become an option of the cast command that carries it
 * out), the signed payload and its canonical bytes, and the checks the executing machine makes
 * before anything runs (docs/team.md "Keys and signed actions").
 */
import crypto from 'node:crypto'

import type {TeamAction} from '../../core/model/verbs.js'

/** An action a teammate may ask: one of the catalog's remote marks (src/core/model/verbs.ts TEAM_ACTIONS). */
export type ActionVerb = TeamAction

/** The longest text an action carries (a message, a note): the CLI's own limit for any argument. */
export const MAX_ACTION_TEXT = 65_536

/** How long a signed request stays good after the wait it was made for: a clock's small lead or lag. */
export const CLOCK_SKEW_MS = 60_000
/** The longest expiry a requester may sign: a request cannot be kept for later use beyond this. */
export const MAX_EXPIRY_MS = 5 * 60_000

/** An action as the executing machine reads it from the team store (calls.ts TeamAction, times in ms). */
export interface QueuedAction {
  readonly id: number
  readonly uid: string | null
  readonly device: string
  readonly sessionId: string
  readonly verb: string
  readonly args: Record<string, unknown>
  readonly requestedBy: string
  readonly requestedFrom: string
  readonly expiresAt: number | null
  readonly sig: string | null
}

/** What is signed: every field an executor acts on, and nothing the server may fill in differently. */
export interface ActionPayload {
  readonly v: 1
  readonly uid: string
  readonly device: string
  readonly session: string
  readonly verb: string
  readonly args: Record<string, unknown>
  readonly requested_by: string
  readonly requested_from: string
  /** ISO 8601 in UTC with milliseconds, as `Date#toISOString` writes it. */
  readonly expires_at: string
}

/**
 * JSON with object keys sorted (by UTF-16 code units, at every depth), no spaces: the same value
 * gives the same bytes whichever side or database wrote it. Only what JSON carries: a number that
 * is not finite, undefined, a function or a bigint is refused.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON: a number that is not finite')
    return JSON.stringify(value)
  }

  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>
    const keys = Object.keys(o).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`
  }

  throw new TypeError(`canonical JSON: a ${typeof value} is not JSON`)
}

export function payloadOf(a: Omit<QueuedAction, 'id' | 'sig'> & {uid: string; expiresAt: number}): ActionPayload {
  return {
    args: a.args,
    device: a.device,
    expires_at: new Date(a.expiresAt).toISOString(),
    requested_by: a.requestedBy,
    requested_from: a.requestedFrom,
    session: a.sessionId,
    uid: a.uid,
    v: 1,
    verb: a.verb,
  }
}

/** The bytes a signature covers: a fixed prefix (no other cast signature can be taken for one), then the canonical payload. */
export function signedBytes(p: ActionPayload): Buffer {
  return Buffer.from(`cast-team-action\n${canonicalJson(p)}`, 'utf8')
}

export function signPayload(p: ActionPayload, privateKey: crypto.KeyObject): string {
  return crypto.sign(null, signedBytes(p), privateKey).toString('base64')
}

/** The public key in the team store's form (base64 of the raw 32 bytes) as a KeyObject, or null when it is not one. */
export function publicKeyFromRaw(raw: string): crypto.KeyObject | null {
  const bytes = Buffer.from(raw, 'base64')
  if (bytes.length !== 32 || bytes.toString('base64') !== raw) return null
  try {
    return crypto.createPublicKey({format: 'jwk', key: {crv: 'Ed25519', kty: 'OKP', x: bytes.toString('base64url')}})
  } catch {
    return null
  }
}

export function verifySignature(p: ActionPayload, sig: string, publicKeyRaw: string): boolean {
  const key = publicKeyFromRaw(publicKeyRaw)
  if (!key) return false
  const bytes = Buffer.from(sig, 'base64')
  if (bytes.length !== 64) return false
  try {
    return crypto.verify(null, signedBytes(p), key, bytes)
  } catch {
    return false
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

// ---------------------------------------------------------------- arguments by kind

/** Text for an agent (a message, a note): any characters but NUL, not empty, bounded. */
function text(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new ArgError(`${what} must be text`)
  if (v.trim() === '') throw new ArgError(`${what} is empty`)
  if (v.length > MAX_ACTION_TEXT) throw new ArgError(`${what} is ${v.length} characters; the limit is ${MAX_ACTION_TEXT}`)
  if (v.includes('\0')) throw new ArgError(`${what} contains a NUL character`)
  return v
}

/** An identity (an email or a team member's id or name): printable, no leading dash, one line. */
function identity(v: unknown): string {
  if (typeof v !== 'string' || !/^[\p{L}\p{N}_.+@][\p{L}\p{N}_.+@ '-]{0,199}$/u.test(v) || v.trim() !== v) {
    throw new ArgError(`"who" must be an identity (an email, or a member's id or name)`)
  }

  return v
}

/** `--if` of send: STATE[:REASON] words separated by commas (src/commands/send.ts). */
function stateMatch(v: unknown): string {
  if (typeof v !== 'string' || !/^[a-z_]+(:[a-z_]+)?(,[a-z_]+(:[a-z_]+)?)*$/.test(v)) throw new ArgError(`"if" must be STATE[:REASON][,…]`)
  return v
}

/** A decision card id (src/core/store/decisions.ts shortRandomId: a letter, then base32). */
function cardId(v: unknown): string {
  if (typeof v !== 'string' || !/^[a-z][a-z2-7]{3,63}$/.test(v)) throw new ArgError('"card" must be a card id')
  return v
}

export class ArgError extends Error {
  override name = 'ArgError'
}

function only(args: Record<string, unknown>, keys: readonly string[]): void {
  const extra = Object.keys(args).filter((k) => !keys.includes(k))
  if (extra.length > 0) throw new ArgError(`unknown argument${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}`)
}

const present = (v: unknown): boolean => v !== undefined && v !== null

/**
 * The action's arguments checked by kind, and the cast command line that carries it out: every
 * value that is text goes after `--` (a positional argument, never an option) or as `--flag=VALUE`
 * (one word: the parser cannot take the value for a flag of its own). Throws ArgError.
 */
export function commandFor(verb: string, sessionId: string, args: Record<string, unknown>): string[] {
  // cast's id (src/core/model/ids.ts castId): 26 characters of lowercase base32.
  if (typeof sessionId !== 'string' || !/^[a-z2-7]{26}$/.test(sessionId)) throw new ArgError('the session id is not a cast id')

  const s = sessionId
  switch (verb) {
    case 'send': {
      only(args, ['message', 'if'])
      const msg = text(args.message, '"message"')
      const ifs = present(args.if) ? (Array.isArray(args.if) ? args.if : [args.if]).map((v) => stateMatch(v)) : []
      return ['send', '--json', ...ifs.map((v) => `--if=${v}`), '--', s, msg]
    }

    case 'approve':
      only(args, ['always'])
      if (present(args.always) && typeof args.always !== 'boolean') throw new ArgError('"always" must be true or false')
      return ['approve', '--json', ...(args.always === true ? ['--always'] : []), '--', s]
    case 'deny': {
      only(args, ['note'])
      const note = present(args.note) ? text(args.note, '"note"') : null
      return ['deny', '--json', ...(note === null ? [] : [`--note=${note}`]), '--', s]
    }

    case 'kill':
      only(args, [])
      return ['kill', '--json', '--', s]
    case 'own':
      only(args, ['who'])
      return ['own', '--json', '--', s, identity(args.who)]
    case 'answer': {
      only(args, ['card', 'choice', 'note'])
      const card = cardId(args.card)
      const choice = text(args.choice, '"choice"')
      if (choice.length > 200 || /[\n\r]/.test(choice)) throw new ArgError('"choice" must be an option number or label')
      const note = present(args.note) ? text(args.note, '"note"') : null
      return ['decide', 'answer', '--json', ...(note === null ? [] : [`--note=${note}`]), '--', card, choice]
    }

    default:
      throw new ArgError(`"${verb}" is not an action cast carries out`)
  }
}

/**
 * The action as the verb runner's call (src/lib/verbs/index.ts): the runner verb and its input,
 * checked by kind exactly as commandFor checks it. Throws ArgError.
 */
export function actionCall(verb: string, sessionId: string, args: Record<string, unknown>): {name: string; input: Record<string, unknown>} {
  commandFor(verb, sessionId, args)
  const s = sessionId
  switch (verb) {
    case 'send': {
      const ifs = present(args.if) ? (Array.isArray(args.if) ? args.if : [args.if]).map((v) => stateMatch(v)) : []
      return {input: {ifText: ifs.length > 0 ? ifs : undefined, message: args.message, session: s}, name: 'reply'}
    }

    case 'approve':
      return {input: {always: args.always === true, session: s}, name: 'approve'}
    case 'deny':
      return {input: {note: present(args.note) ? args.note : null, session: s}, name: 'deny'}
    case 'kill':
      return {input: {sessions: [s]}, name: 'kill'}
    case 'own':
      return {input: {session: s, who: args.who}, name: 'own'}
    case 'answer':
      return {input: {card: args.card, choice: args.choice, note: present(args.note) ? args.note : null}, name: 'answer'}
    default:
      throw new ArgError(`"${verb}" is not an action cast carries out`)
  }
}

// ---------------------------------------------------------------- the executing machine's checks

/** A teammate's key as this machine pinned it (src/lib/team/keys.ts). */
export interface Pinned {
  readonly device: string
  readonly who: string
  readonly pubkey: string
}

/**
 * Why this machine must not carry out `a`, or null when the request is what its requester signed:
 * addressed here, signed with the key this machine pinned for the requesting device, by the
 * identity pinned with that key, and not expired. Pure: the caller checks replay and rights.
 */
export function verifyAction(
  a: QueuedAction,
  o: {device: string; pinned: Pinned | null; serverKey: string | null; now: number; sameIdentity: (x: string, y: string) => boolean},
): string | null {
  if (a.device !== o.device) return `the action is addressed to ${a.device}, not this machine`
  if (!a.uid || !UUID.test(a.uid)) return 'the action has no request id; it was not queued by cast'
  if (!a.sig) return 'the action is not signed; it was not queued by cast'
  if (a.expiresAt === null || !Number.isFinite(a.expiresAt)) return 'the action has no expiry'
  if (!o.pinned) {
    return `this machine does not trust ${a.requestedFrom}'s key: run "cast team keys" and "cast team trust ${a.requestedFrom}" after checking its fingerprint`
  }

  const p = payloadOf({...a, expiresAt: a.expiresAt, uid: a.uid})
  if (!verifySignature(p, a.sig, o.pinned.pubkey)) {
    if (o.serverKey !== null && o.serverKey !== o.pinned.pubkey) {
      return `${a.requestedFrom}'s key changed since this machine trusted it: check its fingerprint ("cast team keys") and run "cast team trust ${a.requestedFrom}"`
    }

    return `the signature does not match ${a.requestedFrom}'s trusted key: the request was not made as it reads`
  }

  if (!o.sameIdentity(a.requestedBy, o.pinned.who)) {
    return `the request names ${a.requestedBy}, but ${a.requestedFrom}'s key was trusted as ${o.pinned.who}'s`
  }

  if (o.now > a.expiresAt + CLOCK_SKEW_MS) return `the request expired at ${new Date(a.expiresAt).toISOString()}`
  if (a.expiresAt > o.now + MAX_EXPIRY_MS + CLOCK_SKEW_MS) return 'the request expires too far ahead (at most 5 minutes)'
  return null
}
