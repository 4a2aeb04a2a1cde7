/**
 * The team's action protocol without a server (src/lib/team/protocol.ts, src/lib/team/keys.ts): what is
 * signed, what the executing machine refuses before anything runs, arguments by kind, and the
 * key files' modes. The same checks against a real PostgreSQL and a superuser are in
 * test/team/signed.test.ts.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {sameIdentity} from '../../src/core/model/ownership.js'
import {ArgError, canonicalJson, commandFor, payloadOf, type QueuedAction, signPayload, verifyAction} from '../../src/lib/team/protocol.js'
import {
  fingerprint,
  KEY_FILE,
  keyLines,
  KeyFileError,
  machineKey,
  readTrust,
  rotateKey,
  TRUST_FILE,
  trustKey,
  untrustKey,
} from '../../src/lib/team/keys.js'
import {json, makeHome, runCast} from '../helpers/cli.js'

const dirs: string[] = []
const tmp = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-keys-'))
  dirs.push(d)
  return d
}

afterAll(() => {
  for (const d of dirs) fs.rmSync(d, {force: true, recursive: true})
})

const SESSION = 'abcdefghijklmnopqrstuvwxyz'

/** An action signed with `home`'s key; `fields` are signed, not changed afterwards. */
function signed(home: string, fields: Partial<QueuedAction> = {}): QueuedAction {
  const key = machineKey(home)
  const a = {
    args: fields.args ?? {message: 'Use the staging database'},
    device: 'host-a',
    expiresAt: Date.now() + 60_000,
    requestedBy: 'ana@example.com',
    requestedFrom: 'host-b',
    sessionId: SESSION,
    uid: crypto.randomUUID(),
    verb: 'send',
  }
  return {...a, id: 1, sig: signPayload(payloadOf(a), key.privateKey)}
}

describe('signed actions: what the executing machine refuses', () => {
  const requester = tmp()
  const pub = machineKey(requester).pubkey
  const pinned = {device: 'host-b', pubkey: pub, who: 'ana@example.com'}
  const check = (a: QueuedAction, o: {pinned?: typeof pinned | null; serverKey?: string | null; now?: number} = {}): string | null =>
    verifyAction(a, {
      device: 'host-a',
      now: o.now ?? Date.now(),
      pinned: o.pinned === undefined ? pinned : o.pinned,
      sameIdentity,
      serverKey: o.serverKey ?? pub,
    })

  it('a request signed with the trusted key, unchanged and in time, passes', () => {
    expect(check(signed(requester))).toBeNull()
  })

  it('canonical JSON sorts keys at every depth; the signature does not depend on the order the server returns keys in', () => {
    expect(canonicalJson({b: 1, a: {d: [2, {z: 1, y: 'é'}], c: null}})).toBe('{"a":{"c":null,"d":[2,{"y":"é","z":1}]},"b":1}')
    const a = signed(requester, {args: {if: ['needs_input'], message: 'x'}})
    expect(check({...a, args: {message: 'x', if: ['needs_input']}})).toBeNull()
  })

  it('refuses every change made after signing, an unknown or changed key, another identity, no signature, expiry', () => {
    const a = signed(requester)
    expect(check({...a, args: {message: 'rm -rf /'}})).toMatch(/signature does not match/)
    expect(check({...a, verb: 'kill'})).toMatch(/signature does not match/)
    expect(check({...a, sessionId: 'zzzzzzzzzzzzzzzzzzzzzzzzzz'})).toMatch(/signature does not match/)
    expect(check({...a, requestedBy: 'bob@example.com'})).toMatch(/signature does not match/)
    expect(check({...a, expiresAt: a.expiresAt! + 3600_000})).toMatch(/signature does not match/)
    expect(check({...a, uid: crypto.randomUUID()})).toMatch(/signature does not match/)
    expect(check({...a, sig: null})).toMatch(/not signed/)
    expect(check({...a, uid: null})).toMatch(/no request id/)
    expect(check({...a, device: 'host-c'})).toMatch(/addressed to host-c/)
    expect(check(a, {pinned: null})).toMatch(/does not trust host-b's key/)
    // Another key on the machines row (a swap on the server): the pinned one still decides.
    const mallory = tmp()
    const forged = signed(mallory)
    expect(check(forged, {serverKey: machineKey(mallory).pubkey})).toMatch(/host-b's key changed since this machine trusted it/)
    expect(check(forged)).toMatch(/signature does not match/)
    // Signed by the trusted key, but the key was trusted as someone else's identity.
    expect(check(a, {pinned: {...pinned, who: 'zoe@example.com'}})).toMatch(/trusted as zoe@example\.com's/)
    expect(check(a, {now: a.expiresAt! + 61_000})).toMatch(/expired/)
    expect(check(a, {now: a.expiresAt! + 30_000})).toBeNull() // a minute of clock difference is allowed
    const farA = {...a, expiresAt: Date.now() + 3600_000}
    const key = machineKey(requester)
    expect(check({...farA, sig: signPayload(payloadOf({...farA, expiresAt: farA.expiresAt, uid: farA.uid!}), key.privateKey)})).toMatch(
      /too far ahead/,
    )
  })
})

describe('arguments by kind: a value never becomes an option', () => {
  it('own {"who":"--help"} and send {"if":"--help"} are refused; unknown arguments too', () => {
    expect(() => commandFor('own', SESSION, {who: '--help'})).toThrow(ArgError)
    expect(() => commandFor('send', SESSION, {if: '--help', message: 'hi'})).toThrow(ArgError)
    expect(() => commandFor('send', SESSION, {if: ['needs_input', '--json'], message: 'hi'})).toThrow(ArgError)
    expect(() => commandFor('send', SESSION, {message: 'hi', extra: '--always'})).toThrow(/unknown argument "extra"/)
    expect(() => commandFor('approve', SESSION, {always: '--help'})).toThrow(ArgError)
    expect(() => commandFor('answer', SESSION, {card: '--help', choice: '1'})).toThrow(ArgError)
    expect(() => commandFor('send', '--help', {message: 'hi'})).toThrow(ArgError)
    expect(() => commandFor('mark', SESSION, {})).toThrow(/not an action/)
  })

  it('text goes after -- or as one --flag=VALUE word', () => {
    expect(commandFor('send', SESSION, {if: ['needs_input:settled'], message: '--help'})).toEqual([
      'send',
      '--json',
      '--if=needs_input:settled',
      '--',
      SESSION,
      '--help',
    ])
    expect(commandFor('deny', SESSION, {note: '--help'})).toEqual(['deny', '--json', '--note=--help', '--', SESSION])
    expect(commandFor('own', SESSION, {who: 'ana@example.com'})).toEqual(['own', '--json', '--', SESSION, 'ana@example.com'])
    expect(commandFor('answer', SESSION, {card: 'dabc2345', choice: '-1', note: '--json'})).toEqual([
      'decide',
      'answer',
      '--json',
      '--note=--json',
      '--',
      'dabc2345',
      '-1',
    ])
  })

  it('the cast command takes those words as data: "--help" after -- is a message, --note=--help a note', async () => {
    const h = makeHome('me@example.com')
    try {
      const send = await runCast(commandFor('send', SESSION, {message: '--help'}), {env: h.env})
      expect(send.code).toBe(3) // the session is unknown: the message was an argument, no help page
      expect(json(send).error.message).toMatch(/No session/)
      const deny = await runCast(commandFor('deny', SESSION, {note: '--help'}), {env: h.env})
      expect(deny.code).toBe(3)
      const own = await runCast(['own', '--json', '--', SESSION, 'ana@example.com'], {env: h.env})
      expect(own.code).toBe(3)
    } finally {
      h.cleanup()
    }
  })
})

describe('keys and the trust list in CAST_HOME', () => {
  it('the private key is made once, mode 0600; a key file others could read is refused, and rotation replaces it', () => {
    const home = tmp()
    const k = machineKey(home)
    expect(fs.statSync(path.join(home, KEY_FILE)).mode & 0o777).toBe(0o600)
    expect(machineKey(home).pubkey).toBe(k.pubkey)
    expect(k.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/)
    fs.chmodSync(path.join(home, KEY_FILE), 0o644)
    expect(() => machineKey(home)).toThrow(KeyFileError)
    expect(() => machineKey(home)).toThrow(/mode 0644/)
    const r = rotateKey(home)
    expect(r.pubkey).not.toBe(k.pubkey)
    expect(fs.statSync(path.join(home, KEY_FILE)).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(home)).toEqual([KEY_FILE]) // no temporary file left behind
  })

  it('trust, change, untrust: a changed key or identity reads "changed"; a trust file others can write is refused', () => {
    const home = tmp()
    const a = machineKey(tmp()).pubkey
    const b = machineKey(tmp()).pubkey
    const server = [
      {device: 'host-a', pubkey: a, who: 'ana@example.com'},
      {device: 'host-b', pubkey: b, who: 'bob@example.com'},
      {device: 'me', pubkey: b, who: 'me@example.com'},
    ]
    expect(keyLines(server, readTrust(home), 'me').map((l) => l.status)).toEqual(['new', 'new', 'this machine'])
    trustKey(home, {device: 'host-a', pubkey: a, who: 'ana@example.com'}, Date.now())
    expect(fs.statSync(path.join(home, TRUST_FILE)).mode & 0o777).toBe(0o600)
    expect(keyLines(server, readTrust(home), 'me')[0]).toMatchObject({fingerprint: fingerprint(a), status: 'trusted'})
    // The server now has another key for host-a (a rotation, or a swap by whoever runs it).
    const swapped = [{...server[0]!, pubkey: b}, server[1]!]
    expect(keyLines(swapped, readTrust(home), 'me')[0]).toMatchObject({pinned: {fingerprint: fingerprint(a)}, status: 'changed'})
    expect(keyLines([{...server[0]!, who: 'eve@example.com'}], readTrust(home), 'me')[0]!.status).toBe('changed')
    expect(keyLines([], readTrust(home), 'me')[0]!.status).toBe('gone')
    fs.chmodSync(path.join(home, TRUST_FILE), 0o666)
    expect(() => readTrust(home)).toThrow(/could be changed by other accounts/)
    fs.chmodSync(path.join(home, TRUST_FILE), 0o644)
    expect(readTrust(home).size).toBe(1) // readable by others: repaired to 0600
    expect(fs.statSync(path.join(home, TRUST_FILE)).mode & 0o777).toBe(0o600)
    expect(untrustKey(home, 'host-a')).toBe(true)
    expect(untrustKey(home, 'host-a')).toBe(false)
  })
})
