import {Flags} from '@oclif/core'

import {registry} from '../lib/agents/agent-commands.js'
import {BaseCommand} from '../lib/cli/base-command.js'
import type {SessionRow} from '../core/store/store.js'
import type {DemoFilings} from '../lib/home/demo-home.js'
import type {Listing} from '../lib/views/views.js'

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
    const {makeIngester} = await import('../lib/ingest/ingest.js')
    const {buildListing} = await import('../lib/views/views.js')
    const {consumeSpool} = await import('../core/ingest/spool.js')
    const {copyDemoTree, fileDemoRecords, fillDemoTokens, writeDemoMarker, writeDemoRegistry} = await import('../lib/home/demo-home.js')
    const {default: Database} = await import('better-sqlite3')

    const source = fileURLToPath(new URL('../../demo', import.meta.url))
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-demo-'))
    const home = path.join(dir, 'home')
    const castHome = path.join(dir, 'cast')
    const now = this.now()
    fs.mkdirSync(home, {recursive: true})
    copyDemoTree(path.join(source, 'home'), home, now, Database)

    const stand = standIns(spawn, flags.keep, dir)
    const filings = JSON.parse(fs.readFileSync(path.join(source, 'filings.json'), 'utf8')) as DemoFilings
    writeDemoRegistry(
      path.join(source, 'registry'),
      path.join(home, filings.registryDir),
      stand.map((p) => p.pid!),
      now,
      processStartTime,
    )

    if (flags.keep)
      writeDemoMarker(
        castHome,
        stand.map((p) => ({pid: p.pid!, startedAt: processStartTime(p.pid!)})),
        now + STAND_IN_KEPT_S * 1000,
      )
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
        fs.writeFileSync(
          path.join(spool, fillDemoTokens(name, now)),
          fillDemoTokens(fs.readFileSync(path.join(source, 'spool', name), 'utf8'), now),
          {
            mode: 0o600,
          },
        )
      }

      consumeSpool(store, ingester, castHome, clock)
      // File a few rows the way a person (and the agents) would.
      fileDemoRecords(store, filings, me, now)
      const {listing, rows} = buildListing(store.loadSessions(), me, now, {})
      if (!this.jsonEnabled())
        await this.print(listing, rows, {
          castHome,
          files: stats.files,
          home,
          keep: flags.keep,
          lines: stats.lines,
          now,
          standIns: stand.map((p) => p.pid!),
        })

      return {...listing, cast_home: castHome, home, kept: flags.keep}
    } finally {
      store.close()
      for (const p of stand) {
        if (flags.keep) p.unref()
        else p.kill('SIGTERM')
      }
      if (!flags.keep) fs.rmSync(dir, {force: true, recursive: true})
    }
  }

  /** The human tour: the inbox over the demo store, then how to explore it (or that it is gone). */
  private async print(
    listing: Listing,
    rows: SessionRow[],
    o: {castHome: string; home: string; keep: boolean; files: number; lines: number; now: number; standIns: readonly number[]},
  ): Promise<void> {
    const {renderListing} = await import('../lib/views/views.js')
    const {terminalStyle} = await import('../lib/views/style.js')
    const style = await terminalStyle()
    this.logStyled(renderListing(listing, rows, o.now, o.home, style, 'cast demo'))
    this.log('')
    if (o.keep) {
      this.log(`The demo read ${o.files} files (${o.lines} lines) into a fresh store. Explore it with:`)
      // The identity too: the demo filed rows for this user, and a new HOME would derive another one.
      const {shellQuote} = await import('../lib/agents/hooks/command.js')
      this.log(`  export HOME=${shellQuote(o.home)} CAST_HOME=${shellQuote(o.castHome)} CAST_USER=${shellQuote(this.me)}`)
      this.log('  cast explain <id>     cast sessions --all     cast sessions -w')
      this.log(
        `(the two stand-in agent processes, pids ${o.standIns.join(' and ')}, keep the live sessions live for eight hours, or until the folder is removed; kill ${o.standIns.join(' ')} ends them sooner, and those two sessions then read dead, as cast sessions then says.)`,
      )
    } else {
      this.log(`The demo read ${o.files} files (${o.lines} lines) into a fresh store, removed again (--keep keeps it).`)
    }
  }
}

/** How long the stand-in agent processes of a kept demo live at most (seconds). */
const STAND_IN_KEPT_S = 8 * 3600
/** A kept stand-in: lives while the demo folder ($1) is there, for at most $2 seconds. */
const KEPT_STAND_IN = 'end=$(( $(date +%s) + $2 )); while [ -d "$1" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 2; done'

/**
 * Two stand-in agent processes, so the live sessions have a real pid with a real start time.
 * Kept (--keep), they outlive the demo while its folder is there, at most STAND_IN_KEPT_S, so the
 * store explored reads as shown.
 */
function standIns(spawn: typeof import('node:child_process').spawn, keep: boolean, dir: string): ReturnType<typeof spawn>[] {
  const one = (): ReturnType<typeof spawn> =>
    keep
      ? spawn('sh', ['-c', KEPT_STAND_IN, 'cast-demo-stand-in', dir, String(STAND_IN_KEPT_S)], {detached: true, stdio: 'ignore'})
      : spawn('sleep', ['300'], {stdio: 'ignore'})
  return [one(), one()]
}
