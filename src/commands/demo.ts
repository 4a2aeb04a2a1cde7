import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/base-command.js'

export default class Demo extends BaseCommand {
  static override description = `Copies the bundled example agent home (sessions that cover every section of the inbox) into
a temporary folder, times shifted so they look recent, starts two stand-in agent processes for
the live sessions, runs the whole pipeline — discovery, incremental parsing, process checks,
classification, placement — into a temporary CAST_HOME, files a few rows the way a person would
(done, dormant, pin, snooze, stash, kill, dismiss), and prints cast sessions over it.

Your own store and agent files are not touched. The folder is kept so you can explore it with
the printed environment (cast explain, cast sessions -w, …).`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override flags = {
    keep: Flags.boolean({allowNo: true, default: true, summary: 'Keep the temporary folder afterwards (--no-keep removes it).'}),
  }
  static override summary = 'Show the inbox over a bundled example.'

  async run(): Promise<Record<string, unknown>> {
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

    const source = fileURLToPath(new URL('../../demo', import.meta.url))
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-demo-'))
    const home = path.join(dir, 'home')
    const castHome = path.join(dir, 'cast')
    const now = this.now()
    const fill = (text: string): string =>
      text.replaceAll(/\{\{t:-(\d+)([smhd])\}\}/g, (_m, n: string, unit: string) => {
        const ms = Number(n) * {d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000}[unit as 'd' | 'h' | 'm' | 's']
        return new Date(now - ms).toISOString()
      })
    const copy = (from: string, to: string): void => {
      for (const e of fs.readdirSync(from, {withFileTypes: true})) {
        const a = path.join(from, e.name)
        const b = path.join(to, e.name)
        if (e.isDirectory()) {
          fs.mkdirSync(b, {recursive: true})
          copy(a, b)
        } else {
          fs.writeFileSync(b, fill(fs.readFileSync(a, 'utf8')))
        }
      }
    }

    fs.mkdirSync(home, {recursive: true})
    copy(path.join(source, 'home'), home)

    // Two stand-in agent processes, so the live sessions have a real pid with a real start time.
    const stand = [spawn('sleep', ['300'], {stdio: 'ignore'}), spawn('sleep', ['300'], {stdio: 'ignore'})]
    const registryDir = path.join(home, '.claude', 'sessions')
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

    const env = {...this.env, CAST_HOME: castHome, CLAUDE_CONFIG_DIR: '', HOME: home}
    delete (env as Record<string, string | undefined>).CLAUDE_CONFIG_DIR
    delete (env as Record<string, string | undefined>).CODEX_HOME
    delete (env as Record<string, string | undefined>).XDG_DATA_HOME
    delete (env as Record<string, string | undefined>).PI_CODING_AGENT_DIR
    delete (env as Record<string, string | undefined>).COPILOT_CONFIG_DIR
    const me = this.me
    const store = new Store(castHome)
    try {
      const clock = (): number => now
      const stats = makeIngester(store, env, clock, me).sync()
      // File a few rows the way a person (and the agents) would.
      const id = (n: string): string => castId('claude_code', `a1f0c2de-${n}-4000-8000-${n.padStart(12, '0')}`)
      const facts = (sid: string): {turnIndex: number; messages: number} => store.loadSessions([sid])[0]!.facts
      store.tx(() => {
        const done = id('0005')
        store.patchRecords(done, {declaration: {at: now - 49 * 60_000, messages: facts(done).messages, status: 'done', text: 'Tooltip shipped; verified in the browser.', turnIndex: facts(done).turnIndex}})
        const dormant = id('0008')
        store.patchRecords(dormant, {declaration: {at: now - 18 * 60_000, messages: facts(dormant).messages, status: 'dormant', text: 'Waiting on the nightly load test (bash_7); I report when it exits.', turnIndex: facts(dormant).turnIndex}})
        const blocked = id('0003')
        store.patchRecords(blocked, {declaration: {at: now - 40 * 60_000, messages: facts(blocked).messages, status: 'blocked', text: 'Need a decision: keep raw-header call sites or migrate them too?', turnIndex: facts(blocked).turnIndex}})
        store.patchRecords(id('0010'), {pinned: true})
        store.patchRecords(id('0020'), {filedAt: now, filing: 'snoozed', snoozedUntil: now + 3_600_000})
        store.patchRecords(id('0030'), {filedAt: now, filing: 'stashed'})
        store.patchRecords(id('0040'), {filedAt: now, filing: 'killed', killedAt: now})
        store.patchRecords(id('0050'), {filedAt: now, filing: 'dismissed'})
        store.reconcile(now)
      })
      const {listing, rows} = buildListing(store.loadSessions(), me, now, {})
      if (!this.jsonEnabled()) {
        const style = await terminalStyle()
        this.log(renderListing(listing, rows, now, home, style, 'cast demo'))
        this.log('')
        this.log(`The demo read ${stats.files} files (${stats.lines} lines) into a fresh store. Explore it with:`)
        this.log(`  export HOME=${home} CAST_HOME=${castHome}`)
        this.log('  cast explain <id>     cast sessions --all     cast sessions -w')
        this.log('(the two stand-in agent processes stop now, so those sessions will read dead next time.)')
      }

      return {...listing, cast_home: castHome, home}
    } finally {
      store.close()
      for (const p of stand) p.kill('SIGTERM')
      if (!flags.keep) fs.rmSync(dir, {force: true, recursive: true})
    }
  }
}
