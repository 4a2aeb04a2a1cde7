import {Flags} from '@oclif/core'

import {registry} from '../lib/agent-commands.js'
import {BaseCommand} from '../lib/base-command.js'
import type {Listing} from '../lib/views.js'

/** What the demo files besides copying its home (demo/filings.json): rows named by agent id and native id. */
interface DemoFilings {
  /** Where demo/registry/ goes, under the temporary HOME (the agent's process registry). */
  readonly registryDir: string
  readonly records: readonly {
    readonly agent: string
    readonly native: string
    readonly declaration?: {readonly minutesAgo: number; readonly status: 'blocked' | 'done' | 'dormant'; readonly text: string}
    readonly pinned?: boolean
    /** A teammate who owns it with you. */
    readonly sharedWith?: string
    readonly filing?: 'dismissed' | 'killed' | 'snoozed' | 'stashed'
    readonly snoozeMinutes?: number
  }[]
}

/** `cast demo --json`: the inbox listing over the demo store, and where that store is. */
export type DemoJson = Listing & {cast_home: string; home: string; kept: boolean}

export default class Demo extends BaseCommand {
  static override description = `Copies the bundled example agent home into a temporary folder — sessions of every agent cast
reads (${registry()
    .modules.map((m) => m.reading.label)
    .join(', ')}) in each one's own file
layout, covering every section of the inbox — with times shifted so they look recent, starts two
stand-in agent processes for the live sessions, runs the whole pipeline — discovery, incremental
parsing, hook events, process checks, classification, placement — into a temporary CAST_HOME,
files a few rows the way a person (or an agent) would (done, dormant, blocked, pin, snooze,
stash, kill, dismiss), and prints cast sessions over it.

Your own store and agent files are not touched. The temporary folder is removed afterwards;
with --keep it stays, and cast prints the environment to explore it with (cast explain,
cast sessions -w, …).`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {command: '<%= config.bin %> <%= command.id %> --keep', description: 'Keep the folder and print how to explore it.'},
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {
    keep: Flags.boolean({allowNo: true, default: false, summary: 'Keep the temporary folder afterwards (removed by default).'}),
  }
  static override summary = 'Show the inbox over a bundled example.'

  async run(): Promise<DemoJson> {
    const {flags} = await this.parse(Demo)
    const fs = await import('node:fs')
    const os = await import('node:os')
    const path = await import('node:path')
    const {spawn} = await import('node:child_process')
    const {fileURLToPath} = await import('node:url')
    const {processStartTime} = await import('../core/ingest/process-table.js')
    const {Store} = await import('../core/store/store.js')
    const {makeIngester} = await import('../lib/ingest.js')
    const {buildListing, renderListing} = await import('../lib/views.js')
    const {terminalStyle} = await import('../lib/style.js')
    const {castId} = await import('../core/model/ids.js')
    const {consumeSpool} = await import('../core/ingest/spool.js')
    const {addOwner} = await import('../core/store/ownership.js')
    const {default: Database} = await import('better-sqlite3')

    const source = fileURLToPath(new URL('../../demo', import.meta.url))
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-demo-'))
    const home = path.join(dir, 'home')
    const castHome = path.join(dir, 'cast')
    const now = this.now()
    // Times in the bundled files are tokens relative to now: {{t:-30m}} an ISO time, {{ms:-30m}} and
    // {{s:-30m}} epoch milliseconds and seconds (a quoted token becomes a bare number), and for file
    // names (no colon) {{day-30m}} YYYY/MM/DD, {{clock-30m}} YYYY-MM-DDThh-mm-ss, {{minute-30m}}
    // YYYY-MM-DDThh-mm (local time, as some agents name their files) and {{stamp-30m}} the
    // ISO time with : and . as - (demo/README.md says which agent uses which).
    const UNIT = {d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000}
    const pad = (n: number, w = 2): string => String(n).padStart(w, '0')
    const render = (kind: string, at: Date): string | null => {
      const date = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`
      const hm = `${pad(at.getHours())}-${pad(at.getMinutes())}`
      switch (kind) {
        case 'clock':
          return `${date}T${hm}-${pad(at.getSeconds())}`
        case 'day':
          return date.replaceAll('-', '/')
        case 'minute':
          return `${date}T${hm}`
        case 'ms':
          return String(at.getTime())
        case 's':
          return String(Math.floor(at.getTime() / 1000))
        case 'stamp':
          return at.toISOString().replaceAll(/[:.]/g, '-')
        case 't':
          return at.toISOString()
        default:
          return null
      }
    }

    const fill = (text: string): string =>
      text.replaceAll(
        /("?)\{\{([a-z]+):?([-+])(\d+)([smhd])\}\}("?)/g,
        (m, q1: string, kind: string, sign: string, n: string, unit: string, q2: string) => {
          const at = new Date(now + (sign === '-' ? -1 : 1) * Number(n) * UNIT[unit as keyof typeof UNIT])
          const value = render(kind, at)
          if (value === null) return m
          const numeric = kind === 'ms' || kind === 's'
          return numeric && q1 && q2 ? value : `${q1}${value}${q2}`
        },
      )
    // A `<name>.db.sql` file is a SQLite database written as SQL (a binary file cannot carry the
    // time tokens): it becomes `<name>.db`, built from the filled SQL.
    const copy = (from: string, to: string): void => {
      for (const e of fs.readdirSync(from, {withFileTypes: true})) {
        const a = path.join(from, e.name)
        const b = path.join(to, fill(e.name))
        if (e.isDirectory()) {
          fs.mkdirSync(b, {recursive: true})
          copy(a, b)
        } else if (e.name.endsWith('.db.sql')) {
          const db = new Database(b.slice(0, -'.sql'.length))
          try {
            db.exec(fill(fs.readFileSync(a, 'utf8')))
          } finally {
            db.close()
          }
        } else {
          fs.writeFileSync(b, fill(fs.readFileSync(a, 'utf8')))
        }
      }
    }

    fs.mkdirSync(home, {recursive: true})
    copy(path.join(source, 'home'), home)

    // Two stand-in agent processes, so the live sessions have a real pid with a real start time.
    const stand = [spawn('sleep', ['300'], {stdio: 'ignore'}), spawn('sleep', ['300'], {stdio: 'ignore'})]
    const filings = JSON.parse(fs.readFileSync(path.join(source, 'filings.json'), 'utf8')) as DemoFilings
    const registryDir = path.join(home, filings.registryDir)
    fs.mkdirSync(registryDir, {recursive: true})
    for (const [i, name] of ['approval.json', 'working.json'].entries()) {
      const pid = stand[i]!.pid!
      const start = processStartTime(pid) ?? now
      const text = fs
        .readFileSync(path.join(source, 'registry', name), 'utf8')
        .replaceAll('"{{pid}}"', String(pid))
        .replaceAll('"{{pidStart}}"', String(Math.round(start)))
        .replaceAll('"{{now}}"', String(now))
      fs.writeFileSync(path.join(registryDir, `${pid}.json`), text)
    }

    const env: Record<string, string | undefined> = {...this.env, CAST_HOME: castHome, HOME: home}
    // Every variable an agent honours would point the demo at the real files: the registry's list.
    for (const name of registry().envVariables) delete env[name]
    const me = this.me
    const store = new Store(castHome)
    try {
      const clock = (): number => now
      const ingester = makeIngester(store, env, clock, me)
      const stats = ingester.sync()
      // Hook events, as `cast hooks install` has the agents drop them (some agents' files never show an open ask).
      const spool = path.join(castHome, 'spool')
      fs.mkdirSync(spool, {mode: 0o700, recursive: true})
      for (const name of fs.readdirSync(path.join(source, 'spool'))) {
        fs.writeFileSync(path.join(spool, fill(name)), fill(fs.readFileSync(path.join(source, 'spool', name), 'utf8')), {mode: 0o600})
      }

      consumeSpool(store, ingester, castHome, clock)
      // File a few rows the way a person (and the agents) would.
      const facts = (sid: string): {turnIndex: number; messages: number} => store.loadSessions([sid])[0]!.facts
      store.tx(() => {
        for (const r of filings.records) {
          const sid = castId(r.agent, r.native)
          if (r.declaration) {
            const d = r.declaration
            store.patchRecords(sid, {
              declaration: {
                at: now - d.minutesAgo * 60_000,
                messages: facts(sid).messages,
                status: d.status,
                text: d.text,
                turnIndex: facts(sid).turnIndex,
              },
            })
          }

          // Shared with a teammate (cast own, cast owners, cast disown have someone to show).
          if (r.sharedWith) {
            addOwner(store, sid, me, me, now - 40 * 60_000)
            addOwner(store, sid, r.sharedWith, me, now - 39 * 60_000)
          }

          if (r.pinned) store.patchRecords(sid, {pinned: true})
          if (r.filing === 'snoozed')
            store.patchRecords(sid, {filedAt: now, filing: 'snoozed', snoozedUntil: now + (r.snoozeMinutes ?? 60) * 60_000})
          else if (r.filing === 'killed') store.patchRecords(sid, {filedAt: now, filing: 'killed', killedAt: now})
          else if (r.filing) store.patchRecords(sid, {filedAt: now, filing: r.filing})
        }

        store.reconcile(now)
      })
      const {listing, rows} = buildListing(store.loadSessions(), me, now, {})
      if (!this.jsonEnabled()) {
        const style = await terminalStyle()
        this.logStyled(renderListing(listing, rows, now, home, style, 'cast demo'))
        this.log('')
        if (flags.keep) {
          this.log(`The demo read ${stats.files} files (${stats.lines} lines) into a fresh store. Explore it with:`)
          this.log(`  export HOME=${home} CAST_HOME=${castHome}`)
          this.log('  cast explain <id>     cast sessions --all     cast sessions -w')
          this.log('(the two stand-in agent processes stop now, so those sessions will read dead next time.)')
        } else {
          this.log(`The demo read ${stats.files} files (${stats.lines} lines) into a fresh store, removed again (--keep keeps it).`)
        }
      }

      return {...listing, cast_home: castHome, home, kept: flags.keep}
    } finally {
      store.close()
      for (const p of stand) p.kill('SIGTERM')
      if (!flags.keep) fs.rmSync(dir, {force: true, recursive: true})
    }
  }
}
