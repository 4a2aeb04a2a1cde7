/**
 * Who may reach `cast web` from another device (docs/web.md, "Security model"): a pairing code
 * (`cast web pair`, short-lived, used once) and the per-device credentials it is exchanged for.
 * Both live in CAST_HOME/web/ (folder 0700, files 0600), stored as SHA-256 hashes: reading the
 * files does not give a working code or credential. Re-read on every request, so a revocation
 * (`cast web devices --revoke`) takes effect at the next request.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** How long a pairing code can be exchanged. */
export const PAIR_TTL_MS = 10 * 60_000
/** Unambiguous letters and digits (no 0/O, 1/I/L) for a code typed on a phone. */
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'

export interface Device {
  readonly id: string
  readonly name: string
  readonly hash: string
  /** SHA-256 of the device's key, which its page keeps in its own storage and sends as a header (never a cookie). */
  readonly key_hash?: string
  readonly created_at: string
  readonly last_seen_at: string | null
}

interface PendingCode {
  readonly hash: string
  readonly expires_at: number
}

export const sha256 = (s: string): string => crypto.createHash('sha256').update(s).digest('hex')

export function webDir(home: string): string {
  return path.join(home, 'web')
}

function readJson<T>(file: string, empty: T): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T
  } catch {
    return empty
  }
}

/** Write a file whole (a temporary file renamed over it), 0600 in a 0700 folder. */
function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), {mode: 0o700, recursive: true})
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', {mode: 0o600})
  fs.chmodSync(tmp, 0o600)
  fs.renameSync(tmp, file)
}

const devicesFile = (home: string): string => path.join(webDir(home), 'devices.json')
const pairFile = (home: string): string => path.join(webDir(home), 'pair.json')

export function listDevices(home: string): Device[] {
  const list = readJson<Device[]>(devicesFile(home), [])
  return Array.isArray(list) ? list : []
}

/** A new pairing code, valid PAIR_TTL_MS; earlier codes stay valid until they expire. */
export function newPairCode(home: string, now: number): {code: string; expiresAt: number} {
  const bytes = crypto.randomBytes(8)
  const chars = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]!).join('')
  const code = `${chars.slice(0, 4)}-${chars.slice(4)}`
  const pending = readJson<PendingCode[]>(pairFile(home), []).filter((p) => p.expires_at > now)
  const expiresAt = now + PAIR_TTL_MS
  writeJson(pairFile(home), [...pending, {expires_at: expiresAt, hash: sha256(normalCode(code))}])
  return {code, expiresAt}
}

/** A code as typed: case and separators do not matter. */
function normalCode(code: string): string {
  return code.toUpperCase().replace(/[^0-9A-Z]/g, '')
}

/** Is a pairing code waiting to be exchanged? (A non-loopback bind needs one, or a paired device.) */
export function pairingPending(home: string, now: number): boolean {
  return readJson<PendingCode[]>(pairFile(home), []).some((p) => p.expires_at > now)
}

/**
 * Exchange a pairing code (once) for a device credential: the credential is returned to the
 * device alone, its hash kept. Null when the code is unknown, used or expired.
 */
export function exchangePairCode(
  home: string,
  code: string,
  name: string,
  now: number,
): {device: Device; credential: string; key: string} | null {
  const hash = sha256(normalCode(code))
  const pending = readJson<PendingCode[]>(pairFile(home), []).filter((p) => p.expires_at > now)
  const match = pending.find((p) => crypto.timingSafeEqual(Buffer.from(p.hash), Buffer.from(hash)))
  // Used or not, expired codes go; the matched one is used up.
  writeJson(
    pairFile(home),
    pending.filter((p) => p !== match),
  )
  if (!match) return null
  const secret = crypto.randomBytes(32).toString('base64url')
  const key = crypto.randomBytes(32).toString('base64url')
  const device: Device = {
    created_at: new Date(now).toISOString(),
    hash: sha256(secret),
    id: crypto.randomBytes(4).toString('hex'),
    key_hash: sha256(key),
    last_seen_at: null,
    name: name.replace(/[^\p{L}\p{N} ._-]/gu, '').slice(0, 40) || 'device',
  }
  writeJson(devicesFile(home), [...listDevices(home), device])
  return {credential: `${device.id}.${secret}`, device, key}
}

/**
 * The device a credential (`id.secret`, the cookie) and its key (the header) belong to, or null
 * (unknown, revoked, malformed, wrong key, or paired before devices had keys). `key` null: the
 * cookie alone, for the page's files, which hold no data.
 */
export function deviceFor(home: string, credential: string, key: string | null): Device | null {
  const dot = credential.indexOf('.')
  if (dot <= 0) return null
  const id = credential.slice(0, dot)
  const hash = Buffer.from(sha256(credential.slice(dot + 1)))
  const device = listDevices(home).find((d) => d.id === id)
  if (!device || !crypto.timingSafeEqual(Buffer.from(device.hash), hash)) return null
  if (key === null) return device
  const k = Buffer.from(sha256(key))
  return device.key_hash !== undefined && crypto.timingSafeEqual(Buffer.from(device.key_hash), k) ? device : null
}

/** Revoke a device by id (or every device with "all"); the ones removed. */
export function revokeDevices(home: string, which: string): Device[] {
  const all = listDevices(home)
  const gone = all.filter((d) => which === 'all' || d.id === which)
  if (gone.length > 0)
    writeJson(
      devicesFile(home),
      all.filter((d) => !gone.includes(d)),
    )
  return gone
}
