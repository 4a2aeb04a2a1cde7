/**
 * A throwaway PostgreSQL cluster for one test run: initdb into a temporary folder, postgres on a
 * free loopback port, passwords (scram) for TCP. initdb and postgres refuse to run as root: as
 * root they run as the `postgres` system user (setpriv), the data folder owned by it.
 * The binaries: $PG_BIN, else /usr/lib/postgresql/<newest>/bin (Debian's postgresql package),
 * else `pg_config --bindir`, else PATH.
 */
import {execFileSync, spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

export function pgBinDir(): string {
  if (process.env.PG_BIN && fs.existsSync(path.join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN
  const base = '/usr/lib/postgresql'
  if (fs.existsSync(base)) {
    const versions = fs
      .readdirSync(base)
      .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return path.join(base, versions[0], 'bin')
  }

  try {
    const dir = execFileSync('pg_config', ['--bindir'], {encoding: 'utf8'}).trim()
    if (fs.existsSync(path.join(dir, 'initdb'))) return dir
  } catch {
    // no pg_config
  }

  return ''
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

export interface Cluster {
  readonly port: number
  readonly dir: string
  /** The superuser's URL (password auth over TCP). */
  readonly adminUrl: string
  url(user: string, password: string, db?: string): string
  start(): Promise<void>
  stop(): Promise<void>
  /** kill -9 of the server (postmaster), then a start once its backends are gone (crash recovery). */
  crash(): Promise<void>
  /** Create a login role that is a member of cast_member (the team's machines). */
  addMachine(user: string, password: string): Promise<void>
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>
  destroy(): Promise<void>
}

export async function startCluster(): Promise<Cluster> {
  const bin = pgBinDir()
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-pg-'))
  const data = path.join(dir, 'data')
  const sock = path.join(dir, 'sock')
  fs.mkdirSync(data)
  fs.mkdirSync(sock)
  const root = process.getuid?.() === 0
  const pwfile = path.join(dir, 'pw')
  const adminPassword = 'admin-' + Math.random().toString(36).slice(2)
  fs.writeFileSync(pwfile, adminPassword + '\n')
  if (root) {
    fs.chmodSync(dir, 0o755)
    execFileSync('chown', ['-R', 'postgres:postgres', data, sock, pwfile])
  }

  const as = (cmd: string, args: string[]): [string, string[]] =>
    root
      ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', path.join(bin, cmd), ...args]]
      : [path.join(bin, cmd), args]
  const [c, a] = as('initdb', [
    '-D',
    data,
    '-U',
    'cast_admin',
    '--pwfile',
    pwfile,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-sync',
  ])
  execFileSync(c, a, {stdio: 'pipe'})
  const port = await freePort()
  let proc: ChildProcess | null = null
  let log = ''
  const start = async (): Promise<void> => {
    const [cmd, args] = as('postgres', [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      sock,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=300',
      '-c',
      'shared_buffers=32MB',
    ])
    proc = spawn(cmd, args, {stdio: ['ignore', 'pipe', 'pipe']})
    proc.stderr!.on('data', (d) => (log = (log + String(d)).slice(-4000)))
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        execFileSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], {stdio: 'ignore'})
        return
      } catch {
        if (Date.now() > deadline) throw new Error(`postgres did not start: ${log}`)
        if (proc.exitCode !== null) throw new Error(`postgres exited: ${log}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  }

  const stop = async (): Promise<void> => {
    const p = proc
    if (!p || p.exitCode !== null) return
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve())
      p.kill('SIGINT') // fast shutdown: every connection dropped
    })
    proc = null
  }

  const crash = async (): Promise<void> => {
    const p = proc
    if (p && p.exitCode === null) {
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve())
        p.kill('SIGKILL')
      })
    }

    proc = null
    // Its backends exit when they notice the postmaster is gone; until then the old shared memory is in use.
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        await start()
        return
      } catch (error) {
        if (Date.now() > deadline) throw error
        await new Promise((r) => setTimeout(r, 200))
      }
    }
  }

  await start()
  const adminUrl = `postgres://cast_admin:${adminPassword}@127.0.0.1:${port}/postgres`
  const pg = (await import('pg')).default
  const sql = async (text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> => {
    const client = new pg.Client({connectionString: adminUrl})
    await client.connect()
    try {
      return (await client.query(text, params)).rows
    } finally {
      await client.end()
    }
  }

  // The team's schema belongs to the admin (as `cast team join` with the owner's URL would make it).
  await sql(
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cast_member') THEN CREATE ROLE cast_member NOLOGIN; END IF; END $$`,
  )
  return {
    adminUrl,
    async addMachine(user, password) {
      await sql(`CREATE ROLE "${user}" LOGIN PASSWORD '${password}' IN ROLE cast_member`)
    },
    async destroy() {
      await stop()
      fs.rmSync(dir, {force: true, recursive: true})
    },
    crash,
    dir,
    port,
    sql,
    start,
    stop,
    url: (user, password, db = 'postgres') => `postgres://${user}:${password}@127.0.0.1:${port}/${db}`,
  }
}
