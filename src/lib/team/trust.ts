/**
 * `cast team keys | trust | untrust` and the key lines `cast team join` shows: the team store's
 * machines and their public keys beside this machine's trust list (keys.ts). The server only
 * says which key a device has now; whether this machine acts on it is decided here, by a person.
 */
import type {MachineKeyRow} from '../../core/store/team/machines.js'
import {cleanError} from '../../core/store/team/client.js'
import {CastError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'
import {fingerprint, type KeyLine, keyLines, KeyFileError, readTrust, trustKey, untrustKey} from './keys.js'

/** Every machine's key as the team store has it now. */
export async function serverKeys(url: string): Promise<MachineKeyRow[]> {
  const {openPool} = await import('../../core/store/team/client.js')
  const {machineKeys} = await import('../../core/store/team/machines.js')
  const pool = await openPool(url, {connectTimeoutMs: 3000, max: 1})
  try {
    return await machineKeys(pool)
  } catch (error) {
    throw new CastError(`The team store is unreachable: ${cleanError(error, url)}`, EXIT.FAILURE)
  } finally {
    await pool.end().catch(() => {})
  }
}

function trustList(home: string): ReturnType<typeof readTrust> {
  try {
    return readTrust(home)
  } catch (error) {
    if (error instanceof KeyFileError) throw new CastError(error.message, EXIT.FAILURE)
    throw error
  }
}

export function linesFor(home: string, machines: readonly MachineKeyRow[], device: string): KeyLine[] {
  return keyLines(machines, trustList(home), device)
}

/** One line of `cast team keys`: device, identity, fingerprint, status (and the pinned key when it changed). */
export function keyLineText(l: KeyLine): string {
  const was = l.pinned ? `  (trusted: ${l.pinned.fingerprint} as ${l.pinned.who})` : ''
  return `  ${l.device}  ${l.who}  ${l.fingerprint ?? '(no key)'}  ${l.status}${was}`
}

export interface TrustResult {
  readonly device: string
  readonly who: string
  readonly fingerprint: string
  /** The key this replaced, when the device's key had changed. */
  readonly previous: {readonly fingerprint: string; readonly who: string} | null
}

/** Pin the key the server has for DEVICE now (optionally only if its fingerprint is `expect`). */
export function trustDevice(
  home: string,
  machines: readonly MachineKeyRow[],
  device: string,
  me: string,
  o: {expect?: string; now: number},
): TrustResult {
  if (device === me) throw new CastError(`${device} is this machine: its own key needs no trust.`, EXIT.USAGE)
  const m = machines.find((x) => x.device === device)
  if (!m) throw new CastError(`No machine "${device}" in the team store (cast team keys lists them).`, EXIT.NOT_FOUND)
  if (!m.pubkey) {
    throw new CastError(
      `${device} has published no key: it runs a cast without signed actions, or has not joined since. Nothing changed.`,
      EXIT.REFUSED,
    )
  }

  const fp = fingerprint(m.pubkey)
  if (o.expect !== undefined && o.expect !== fp) {
    throw new CastError(`${device}'s key on the team store is ${fp}, not ${o.expect}: not trusted. Nothing changed.`, EXIT.REFUSED)
  }

  const old = trustList(home).get(device)
  trustKey(home, {device, pubkey: m.pubkey, who: m.who}, o.now)
  const previous = old && (old.pubkey !== m.pubkey || old.who !== m.who) ? {fingerprint: fingerprint(old.pubkey), who: old.who} : null
  return {device, fingerprint: fp, previous, who: m.who}
}

export function untrustDevice(home: string, device: string): void {
  let removed: boolean
  try {
    removed = untrustKey(home, device)
  } catch (error) {
    if (error instanceof KeyFileError) throw new CastError(error.message, EXIT.FAILURE)
    throw error
  }

  if (!removed) throw new CastError(`${device} is not trusted on this machine (cast team keys lists the trusted keys).`, EXIT.NOT_FOUND)
}

/** Publish this machine's public key on its row of the team store. */
export async function publishKey(url: string, device: string, pubkey: string): Promise<void> {
  const {openPool} = await import('../../core/store/team/client.js')
  const {registerMachine} = await import('../../core/store/team/calls.js')
  const pool = await openPool(url, {connectTimeoutMs: 3000, max: 1})
  try {
    await registerMachine(pool, device, pubkey)
  } catch (error) {
    throw new CastError(
      `The new key is made but not published (${cleanError(error, url)}); run cast team keys --rotate again.`,
      EXIT.FAILURE,
    )
  } finally {
    await pool.end().catch(() => {})
  }
}
