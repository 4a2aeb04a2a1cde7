/**
 * Names that look like a teammate's: a zero-width space in `bo\u200bb`, a Cyrillic `а` in
 * `аlice`, a direction override. Refused where a name enters the team (admit, join, the server's
 * own functions, trust) with one line that shows code points, exit 2; a row that holds one anyway
 * (written before these checks) is shown by `cast team keys` as unsafe, with its fingerprint.
 */
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {killStarted, makeHome, runCast} from '../helpers/cli.js'
import {fingerprint, machineKey} from '../../src/lib/team/keys.js'
import {type Cluster, startCluster} from './pg.js'
import {type Machine, makeMachine, setupSchema} from './helpers.js'

let cluster: Cluster
const machines: Machine[] = []
const clients: pg.Client[] = []
const admin = makeHome('admin@example.com')
const adminEnv = {...admin.env, CAST_DEVICE: 'admin-box'}

const ZW = 'bo\u200bb'
const CYR = '\u0430lice' // Cyrillic а, then Latin
const BIDI = 'eve\u202egnp.exe'
const LOOKALIKES = [ZW, CYR, BIDI]

beforeAll(async () => {
  cluster = await startCluster()
  await setupSchema(cluster)
  const joined = await runCast(['team', 'join', cluster.adminUrl], {env: adminEnv})
  if (joined.code !== 0) throw new Error(`admin join: ${joined.stderr}`)
}, 120_000)

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {})
  killStarted()
  await cluster?.destroy()
  for (const m of machines) m.h.cleanup()
  admin.cleanup()
}, 60_000)

function oneLine(r: {code: number; stderr: string}, code = 2): string {
  expect(r.code, r.stderr).toBe(code)
  const lines = r.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  // Shown as code points, never raw.
  expect(lines[0]).not.toMatch(/[\u200b\u202e\u0430]/)
  return lines[0]!
}

async function raw(m: Machine): Promise<pg.Client> {
  const url = JSON.parse(fs.readFileSync(path.join(m.h.castHome, 'config.json'), 'utf8')).team.url as string
  const c = new pg.Client({connectionString: url})
  c.on('error', () => {})
  await c.connect()
  clients.push(c)
  return c
}

async function code(c: pg.Client, sql: string, params: unknown[]): Promise<string> {
  try {
    await c.query(sql, params)
    return 'ok'
  } catch (error) {
    return String((error as {code?: string}).code)
  }
}

describe('team: look-alike names', () => {
  it('admit, join, the server and trust refuse them with one line (exit 2); cast team keys shows each with its fingerprint', async () => {
    const bob = await makeMachine(cluster, 'bob', 'bob@example.com')
    machines.push(bob)
    await cluster.addMachine('m_new', 'pw-new')

    // admit: the admin's command.
    for (const who of [`${ZW}@example.com`, `${CYR}@example.com`, `${BIDI}@example.com`]) {
      const line = oneLine(await runCast(['team', 'admit', 'm_new', who], {env: adminEnv}))
      expect(line).toMatch(/Not admitted: \[unsafe name: .*<U\+(200B|0430|202E)>/)
    }

    expect(await cluster.sql(`SELECT who FROM cast_team.members WHERE role = 'm_new'`)).toEqual([])

    // join: this machine's device name.
    const h = makeHome('new@example.com')
    try {
      await cluster.sql(`SELECT cast_team.admit_member('m_new', 'new@example.com')`)
      for (const device of LOOKALIKES) {
        const r = await runCast(['team', 'join', cluster.url('m_new', 'pw-new')], {env: {...h.env, CAST_DEVICE: device}})
        expect(oneLine(r)).toMatch(/device name \[unsafe name: .*<U\+(200B|0430|202E)>.*is refused/)
      }
    } finally {
      h.cleanup()
    }

    expect(await cluster.sql(`SELECT device FROM cast_team.machines WHERE role = 'm_new'`)).toEqual([])

    // The server: a member calling its functions with raw SQL, the admin with raw SQL.
    const c = await raw(bob)
    for (const device of LOOKALIKES) expect(await code(c, 'SELECT cast_team.register_machine($1, NULL, NULL)', [device])).toBe('22023')
    for (const who of [`${ZW}@example.com`, `${CYR}@example.com`, `${BIDI}@example.com`])
      await expect(cluster.sql('SELECT cast_team.admit_member($1, $2)', ['m_new', who])).rejects.toThrow(/identity/)

    // Rows that hold such names anyway (written before the server checked them): shown as unsafe, with
    // their fingerprint; trust refuses them.
    const keys = LOOKALIKES.map((_, i) => machineKey(path.join(admin.dir, `k${i}`)))
    for (const [i, device] of LOOKALIKES.entries()) {
      await cluster.sql(`CREATE ROLE m_old${i} LOGIN IN ROLE cast_member`)
      await cluster.sql('INSERT INTO cast_team.members (role, who) VALUES ($1, $2)', [`m_old${i}`, `${device}@example.com`])
      await cluster.sql('INSERT INTO cast_team.machines (device, role, who, pubkey) VALUES ($1, $2, $3, $4)', [
        device,
        `m_old${i}`,
        `${device}@example.com`,
        keys[i]!.pubkey,
      ])
    }

    const shown = await bob.cast(['team', 'keys'])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).not.toMatch(/[\u200b\u202e\u0430]/)
    for (const [i, cp] of ['<U+200B>', '<U+0430>', '<U+202E>'].entries()) {
      const line = shown.stdout.split('\n').find((l) => l.includes(cp))
      expect(line, shown.stdout).toBeDefined()
      expect(line).toMatch(/\[unsafe name: /)
      expect(line).toContain(fingerprint(keys[i]!.pubkey))
    }

    for (const device of LOOKALIKES) {
      const line = oneLine(await bob.cast(['team', 'trust', device]))
      expect(line).toMatch(/is not trusted: .*Nothing changed/)
      expect(line).toContain('SHA256:')
    }

    const trustFile = path.join(bob.h.castHome, 'team-trust.json')
    const pinned = fs.existsSync(trustFile) ? fs.readFileSync(trustFile, 'utf8') : ''
    expect(pinned).not.toMatch(/u200b|\u200b|\u0430|\u202e/i)
  })
})
