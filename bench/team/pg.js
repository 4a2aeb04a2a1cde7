/**
 * A throwaway PostgreSQL cluster for bench/team (the same recipe as test/team/pg.ts): initdb into a
 * temporary folder, postgres on a free loopback port, scram passwords over TCP, fsync on (as a
 * real server), pg_stat_statements loaded when the contrib is installed. As root, initdb and
 * postgres run as the `postgres` system user (setpriv).
 */
import {execFileSync, spawn} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import {requireFromRoot} from '../lib/common.js'

export function pgBinDir() {
  if (process.env.PG_BIN && fs.existsSync(path.join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN
  const base = '/usr/lib/postgresql'
  if (fs.existsSync(base)) {
    const v = fs
      .readdirSync(base)
      .filter((x) => fs.existsSync(path.join(base, x, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (v[0]) return path.join(base, v[0], 'bin')
  }
  return ''
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const {port} = s.address()
      s.close(() => resolve(port))
    })
  })

export async function startCluster({maxConnections = 300} = {}) {
  const bin = pgBinDir()
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)')
  const version = path.basename(path.dirname(bin))
  const statements = fs.existsSync(`/usr/share/postgresql/${version}/extension/pg_stat_statements.control`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-bench-pg-'))
  const data = path.join(dir, 'data')
  const sock = path.join(dir, 'sock')
  fs.mkdirSync(data)
  fs.mkdirSync(sock)
  const root = process.getuid?.() === 0
  const pwfile = path.join(dir, 'pw')
  const password = 'admin-' + Math.random().toString(36).slice(2)
  fs.writeFileSync(pwfile, password + '\n')
  if (root) {
    fs.chmodSync(dir, 0o755)
    execFileSync('chown', ['-R', 'postgres:postgres', data, sock, pwfile])
  }
  const as = (cmd, args) =>
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
  const opts = ['-c', 'listen_addresses=127.0.0.1', '-c', `max_connections=${maxConnections}`, '-c', 'shared_buffers=128MB']
  if (statements) opts.push('-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all')
  const [cmd, args] = as('postgres', ['-D', data, '-p', String(port), '-k', sock, ...opts])
  const proc = spawn(cmd, args, {stdio: ['ignore', 'ignore', 'pipe']})
  let log = ''
  proc.stderr.on('data', (d) => (log = (log + String(d)).slice(-4000)))
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      execFileSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], {stdio: 'ignore'})
      break
    } catch {
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`postgres did not start: ${log}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const pg = requireFromRoot('pg')
  const adminUrl = `postgres://cast_admin:${password}@127.0.0.1:${port}/postgres`
  const admin = new pg.Pool({connectionString: adminUrl, max: 2})
  const sql = async (text, params = []) => (await admin.query(text, params)).rows
  if (statements) await sql('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  /** CPU (ms) of the server: the postmaster, its reaped children and its live backends (/proc). */
  const cpuMs = () => {
    const tck = 100
    const stat = (pid) => {
      const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      return s.slice(s.lastIndexOf(')') + 2).split(' ')
    }
    // setpriv execs postgres in place, so the spawned pid is the postmaster's.
    const pm = proc.pid ?? null
    if (!pm) return null
    const f = stat(pm)
    let t = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
    for (const pid of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
      try {
        const g = stat(pid)
        if (Number(g[1]) === pm) t += Number(g[11]) + Number(g[12])
      } catch {
        // the process exited between readdir and read: it adds nothing
      }
    }
    return (t * 1000) / tck
  }
  return {
    adminUrl,
    cpuMs,
    dir,
    port,
    sql,
    statements,
    version,
    url: (user, pw) => `postgres://${user}:${pw}@127.0.0.1:${port}/postgres`,
    async destroy() {
      await admin.end().catch(() => {})
      if (proc.exitCode === null) {
        await new Promise((r) => {
          proc.once('exit', r)
          proc.kill('SIGINT')
        })
      }
      fs.rmSync(dir, {force: true, recursive: true})
    },
  }
}
