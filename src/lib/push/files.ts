/**
 * What the phone needs kept on this machine, in CAST_HOME/push/ (folder 0700, files 0600): the
 * VAPID key pair (made once per machine), the push subscriptions keyed by the paired device they
 * belong to, and the one-use action tokens a notification carries (stored as SHA-256 hashes, so
 * reading the file gives no working token). Each file is written whole (a temporary renamed over it).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import {newVapidKeys, type PushKeys, type VapidKeys} from './webpush.js'

export const pushDir = (home: string): string => path.join(home, 'push')

function readJson<T>(file: string, empty: T): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T
  } catch {
    return empty
  }
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), {mode: 0o700, recursive: true})
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(3).toString('hex')}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', {mode: 0o600})
  fs.chmodSync(tmp, 0o600)
  fs.renameSync(tmp, file)
}

/** This machine's VAPID key pair, made on first use (CAST_HOME/push/vapid.json, 0600). */
export function vapidKeys(home: string): VapidKeys {
  const file = path.join(pushDir(home), 'vapid.json')
  const got = readJson<Partial<VapidKeys>>(file, {})
  if (typeof got.publicKey === 'string' && typeof got.privateKey === 'string') return got as VapidKeys
  const keys = newVapidKeys()
  // Two processes racing: the first file written wins, both read it back.
  fs.mkdirSync(pushDir(home), {mode: 0o700, recursive: true})
  try {
    fs.writeFileSync(file, JSON.stringify(keys) + '\n', {flag: 'wx', mode: 0o600})
  } catch {
    // written by the other one
  }

  return readJson<VapidKeys>(file, keys)
}

export interface Subscription {
  /** The paired device (src/lib/home/devices.ts) it belongs to. */
  readonly device: string
  readonly endpoint: string
  readonly keys: PushKeys
  readonly created_at: string
  /** After a 429 or 5xx: no push before this time (ms). */
  readonly retry_at?: number
  readonly failures?: number
}

const subsFile = (home: string): string => path.join(pushDir(home), 'subscriptions.json')

export function listSubscriptions(home: string): Subscription[] {
  const list = readJson<Subscription[]>(subsFile(home), [])
  return Array.isArray(list) ? list : []
}

/** Store a device's subscription (one per endpoint; the same endpoint again replaces it). */
export function saveSubscription(home: string, sub: Subscription): void {
  writeJson(subsFile(home), [...listSubscriptions(home).filter((s) => s.endpoint !== sub.endpoint), sub])
}

/** Change or drop subscriptions by endpoint (null drops it). */
export function updateSubscriptions(home: string, change: (s: Subscription) => Subscription | null): void {
  const before = listSubscriptions(home)
  const after = before.map(change).filter((s): s is Subscription => s !== null)
  writeJson(subsFile(home), after)
}

/** Forget every subscription of a device (or of every device with "all"): what revoking it calls. The count dropped. */
export function dropSubscriptions(home: string, device: string): number {
  const all = listSubscriptions(home)
  const keep = all.filter((s) => device !== 'all' && s.device !== device)
  if (keep.length !== all.length) writeJson(subsFile(home), keep)
  return all.length - keep.length
}

/** What a notification's action does: approve or deny the open prompt, or pick an option by its text. */
export type ActionVerb = 'approve' | 'deny' | 'choose'

export interface ActionGrant {
  readonly session: string
  /** The ask it was made for (askId): a different ask refuses it. */
  readonly ask: string
  readonly verb: ActionVerb
  /** choose: the option's label, as the notification showed it. */
  readonly option: string | null
  readonly expires_at: number
  /** Where it may be spent: a paired device's service worker (with its credential), or an ntfy URL (the token alone). */
  readonly via: 'push' | 'ntfy'
}

interface StoredGrant extends ActionGrant {
  readonly hash: string
}

/** How long a notification's action stays good. */
export const ACTION_TTL_MS = 30 * 60_000

const actionsFile = (home: string): string => path.join(pushDir(home), 'actions.json')
const sha256 = (s: string): string => crypto.createHash('sha256').update(s).digest('hex')

/** Mint one-use tokens for these grants; expired ones are swept on the way. */
export function grantActions(home: string, grants: readonly ActionGrant[], now: number): string[] {
  const kept = readJson<StoredGrant[]>(actionsFile(home), []).filter((g) => g.expires_at > now)
  const tokens = grants.map(() => crypto.randomBytes(24).toString('base64url'))
  writeJson(actionsFile(home), [...kept, ...grants.map((g, i) => ({...g, hash: sha256(tokens[i]!)}))].slice(-2000))
  return tokens
}

/** Spend a token (once): its grant, or why not. Every token of the same notification goes with it. */
export function spendAction(home: string, token: string, via: 'push' | 'ntfy', now: number): ActionGrant | 'unknown' | 'expired' {
  if (!/^[\w-]{20,60}$/.test(token)) return 'unknown'
  const all = readJson<StoredGrant[]>(actionsFile(home), [])
  const hash = sha256(token)
  const g = all.find((x) => x.hash.length === hash.length && crypto.timingSafeEqual(Buffer.from(x.hash), Buffer.from(hash)))
  if (!g || g.via !== via) return 'unknown'
  // One answer per ask: the sibling actions (Deny beside Approve) are spent with it.
  writeJson(
    actionsFile(home),
    all.filter((x) => x.expires_at > now && !(x.session === g.session && x.ask === g.ask)),
  )
  if (g.expires_at <= now) return 'expired'
  const {hash: _h, ...grant} = g
  return grant
}
