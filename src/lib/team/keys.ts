/**
 * This machine's signing key and the teammates' keys it trusts, both files in CAST_HOME (like
 * ssh's id_ed25519 and known_hosts):
 * - `team-key`: this machine's Ed25519 private key (PKCS#8 PEM), mode 0600, created atomically;
 *   a key file others could read is refused (rotate it), never used;
 * - `team-trust.json`: the keys this machine pinned with `cast team trust DEVICE`, each with the
 *   identity it was trusted as; mode 0600, replaced atomically; one others could write is refused.
 * The public key travels as base64 of its raw 32 bytes; its fingerprint is `SHA256:` and the
 * unpadded base64 of the SHA-256 of those bytes (as `ssh-keygen -l` shows keys).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import type {Pinned} from './protocol.js'

export const KEY_FILE = 'team-key'
export const TRUST_FILE = 'team-trust.json'

export class KeyFileError extends Error {
  override name = 'KeyFileError'
}

export interface MachineKey {
  readonly privateKey: crypto.KeyObject
  /** base64 of the raw 32-byte public key. */
  readonly pubkey: string
  readonly fingerprint: string
}

export function fingerprint(pubkey: string): string {
  return 'SHA256:' + crypto.createHash('sha256').update(Buffer.from(pubkey, 'base64')).digest('base64').replace(/=+$/, '')
}

function rawPublic(key: crypto.KeyObject): string {
  const jwk = crypto.createPublicKey(key).export({format: 'jwk'}) as {x: string}
  return Buffer.from(jwk.x, 'base64url').toString('base64')
}

/** Write `data` to a new file beside `file` with mode 0600, flushed, then put it in place atomically. */
function writePrivate(file: string, data: string, replace: boolean): boolean {
  const tmp = `${file}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`
  const fd = fs.openSync(tmp, 'wx', 0o600)
  try {
    fs.writeSync(fd, data)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }

  try {
    if (replace) {
      fs.renameSync(tmp, file)
      return true
    }

    try {
      fs.linkSync(tmp, file) // fails if another process made the file first: theirs stands
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw error
    }
  } finally {
    fs.rmSync(tmp, {force: true})
  }
}

/** The file's mode is 0600 (or narrower), it is a regular file, and this account owns it; else why not. */
function privateFileProblem(file: string): string | null {
  const st = fs.lstatSync(file)
  if (!st.isFile()) return `${file} is not a regular file`
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return `${file} belongs to another account (uid ${st.uid})`
  if ((st.mode & 0o077) !== 0) return `${file} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}: others could read it`
  return null
}

function readKey(file: string): MachineKey {
  const problem = privateFileProblem(file)
  if (problem) {
    throw new KeyFileError(
      `This machine's team key is not private (${problem}); it is not used. Make a new one with "cast team keys --rotate" (teammates then trust it again).`,
    )
  }

  let privateKey: crypto.KeyObject
  try {
    privateKey = crypto.createPrivateKey(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    throw new KeyFileError(`${file} is not a private key (${(error as Error).message}); make a new one with "cast team keys --rotate".`)
  }

  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new KeyFileError(`${file} is not an Ed25519 key; make a new one with "cast team keys --rotate".`)
  const pubkey = rawPublic(privateKey)
  return {fingerprint: fingerprint(pubkey), privateKey, pubkey}
}

function newKeyPem(): string {
  const {privateKey} = crypto.generateKeyPairSync('ed25519')
  return privateKey.export({format: 'pem', type: 'pkcs8'}).toString()
}

/** This machine's key, made on first use. */
export function machineKey(home: string): MachineKey {
  const file = path.join(home, KEY_FILE)
  if (!fs.existsSync(file)) {
    fs.mkdirSync(home, {recursive: true})
    writePrivate(file, newKeyPem(), false)
  }

  return readKey(file)
}

/** A new key in place of the old one (the old one is gone: requests it signed are refused once teammates trust the new one). */
export function rotateKey(home: string): MachineKey {
  fs.mkdirSync(home, {recursive: true})
  writePrivate(path.join(home, KEY_FILE), newKeyPem(), true)
  return readKey(path.join(home, KEY_FILE))
}

// ---------------------------------------------------------------- the trust list

interface TrustFile {
  v: 1
  keys: Record<string, {who: string; pubkey: string; trusted_at: string}>
}

export function readTrust(home: string): Map<string, Pinned & {trustedAt: string}> {
  const file = path.join(home, TRUST_FILE)
  let text: string
  try {
    const st = fs.lstatSync(file)
    if (!st.isFile()) throw new KeyFileError(`${file} is not a regular file; no teammate's key is trusted until it is.`)
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      throw new KeyFileError(`${file} belongs to another account (uid ${st.uid}); no teammate's key is trusted until it is this account's.`)
    }

    if ((st.mode & 0o022) !== 0) {
      throw new KeyFileError(
        `${file} could be changed by other accounts (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); no teammate's key is trusted until it is 0600.`,
      )
    }

    if ((st.mode & 0o077) !== 0) fs.chmodSync(file, 0o600)
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map()
    throw error
  }

  let parsed: TrustFile
  try {
    parsed = JSON.parse(text) as TrustFile
  } catch {
    throw new KeyFileError(`${file} is not JSON; no teammate's key is trusted until it is fixed or removed.`)
  }

  const out = new Map<string, Pinned & {trustedAt: string}>()
  for (const [device, k] of Object.entries(parsed.keys ?? {})) {
    if (typeof k?.who === 'string' && typeof k.pubkey === 'string') {
      out.set(device, {device, pubkey: k.pubkey, trustedAt: String(k.trusted_at ?? ''), who: k.who})
    }
  }

  return out
}

function writeTrust(home: string, keys: Map<string, Pinned & {trustedAt: string}>): void {
  const file: TrustFile = {keys: {}, v: 1}
  for (const [device, k] of [...keys].sort(([a], [b]) => (a < b ? -1 : 1))) {
    file.keys[device] = {pubkey: k.pubkey, trusted_at: k.trustedAt, who: k.who}
  }

  fs.mkdirSync(home, {recursive: true})
  writePrivate(path.join(home, TRUST_FILE), JSON.stringify(file, null, 2) + '\n', true)
}

export function trustKey(home: string, k: Pinned, now: number): void {
  const keys = readTrust(home)
  keys.set(k.device, {...k, trustedAt: new Date(now).toISOString()})
  writeTrust(home, keys)
}

/** Forget a device's key; whether it was trusted. */
export function untrustKey(home: string, device: string): boolean {
  const keys = readTrust(home)
  if (!keys.delete(device)) return false
  writeTrust(home, keys)
  return true
}

export type KeyStatus = 'trusted' | 'changed' | 'new' | 'no key' | 'gone' | 'this machine'

export interface KeyLine {
  readonly device: string
  readonly who: string
  readonly fingerprint: string | null
  readonly status: KeyStatus
  /** When the key differs from the pinned one: the pinned key's fingerprint and identity. */
  readonly pinned: {readonly fingerprint: string; readonly who: string} | null
}

/** Every teammate's key as the server has it beside this machine's trust list. */
export function keyLines(
  machines: readonly {device: string; who: string; pubkey: string | null}[],
  trust: ReadonlyMap<string, Pinned>,
  me: string,
): KeyLine[] {
  const lines: KeyLine[] = machines.map((m) => {
    const p = trust.get(m.device) ?? null
    const fp = m.pubkey ? fingerprint(m.pubkey) : null
    const pinned = p ? {fingerprint: fingerprint(p.pubkey), who: p.who} : null
    let status: KeyStatus
    if (m.device === me) status = 'this machine'
    else if (!m.pubkey) status = 'no key'
    else if (!p) status = 'new'
    else if (p.pubkey === m.pubkey && p.who === m.who) status = 'trusted'
    else status = 'changed'
    return {device: m.device, fingerprint: fp, pinned: status === 'changed' ? pinned : null, status, who: m.who}
  })
  for (const [device, p] of trust) {
    if (!machines.some((m) => m.device === device)) {
      lines.push({device, fingerprint: fingerprint(p.pubkey), pinned: null, status: 'gone', who: p.who})
    }
  }

  return lines.sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0))
}
