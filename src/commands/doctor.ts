import {Flags} from '@oclif/core'

import type {ScreenSweepStats} from '../core/ingest/screen.js'
import type {AgentCliVersion} from '../lib/agent-versions.js'
import type {AgentStoreStats} from '../core/store/doctor.js'
import type {Store} from '../core/store/store.js'
import {BaseCommand} from '../lib/base-command.js'

/** State sources, best first: what can tell cast that a session waits. */
const SOURCE_ORDER = ['hooks', 'registry', 'lock', 'open_file', 'transcript', 'screen'] as const
export type StateSource = (typeof SOURCE_ORDER)[number]

export interface DoctorRoot {
  readonly path: string
  readonly exists: boolean
}

export interface DoctorHooks {
  /** installed | partial | stale | not_installed | error (from `cast hooks status`), unsupported, unknown. */
  readonly state: string
  readonly file: string | null
  readonly binary: string | null
  readonly binary_exists: boolean | null
  readonly note: string | null
}

export interface DoctorAdapter {
  readonly agent: string
  readonly label: string
  readonly roots: DoctorRoot[]
  readonly sessions: number
  readonly files: number
  readonly parse_errors: number
  readonly hooks: DoctorHooks
  /** Sources that have spoken (or could, for the screen), best first. */
  readonly sources: StateSource[]
  /** The best of them, or null when cast has nothing to read for this agent. */
  readonly state_source: StateSource | null
  /** Sessions per process-claim source kind (registry, lock; process: a file the agent holds open). */
  readonly claims: Record<string, number>
  readonly hook_sessions: number
  readonly screen_sessions: number
  /** The agent's CLI on PATH: installed version and the one the conformance suite passed with. */
  readonly cli: AgentCliVersion | null
  /** How many screen patterns per kind (after the config's). */
  readonly screen_patterns: Record<string, number>
}

export interface DoctorProblem {
  readonly agent: string | null
  readonly message: string
  readonly fix: string | null
}

export interface DoctorReport {
  readonly ok: boolean
  readonly store: {
    readonly path: string
    readonly ok: boolean
    readonly schema_version: number | null
    readonly sessions: number | null
    readonly files: number | null
    readonly parse_errors: number | null
    readonly error: string | null
  }
  readonly tmux: {
    readonly binary: string | null
    readonly server: boolean
    readonly socket: string | null
    /** Every tmux server socket the user owns. */
    readonly servers: string[]
    readonly panes: number
    readonly agent_panes: number
    readonly read: number
    readonly error: string | null
  }
  readonly config: {readonly path: string; readonly exists: boolean; readonly screen_pattern_errors: string[]}
  readonly adapters: DoctorAdapter[]
  readonly warnings: string[]
  readonly problems: DoctorProblem[]
}

export default class Doctor extends BaseCommand {
  static override description = `For every agent cast reads: where it looks (each root, and whether it exists), how many
sessions it found, the files it read and their malformed lines, whether cast's hooks are
installed, and the best source of state it has (hooks, then a process registry or lock file,
then the transcript, then the tmux screen). Then the store, tmux and the config.

Exits 1 only for a real problem: a store cast cannot read, or a hook that points at a cast-hook
binary that is not there (the agent would fail running it). Everything else is reported, with
what to run, and exits 0.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json', '<%= config.bin %> <%= command.id %> --repair']
  static override flags = {
    repair: Flags.boolean({
      summary: "When the store's integrity check fails: copy what can be read into a new store (cast's own records: states, pins, owners, labels, decisions, the log), keep the damaged file beside it, and re-read the agents' files.",
    }),
  }
  static override summary = 'Check what cast can read on this machine, agent by agent.'

  async run(): Promise<DoctorReport> {
    const {flags} = await this.parse(Doctor)
    const fs = await import('node:fs')
    const path = await import('node:path')
    const {HOOK_SPECS, NO_HOOKS, hooksStatus, tildePath} = await import('../lib/hooks-install.js')
    const {SCREEN_KINDS, adapterEnv, makeIngester, registry, screenMatcher, syncBeforeRead} = await import('../lib/ingest.js')
    const {configPath} = await import('../lib/config.js')
    const {castHome} = await import('../lib/env.js')
    const {readScreenOverrides, screenSweepOf, tmuxBinary, tmuxServer} = await import('../core/ingest/screen.js')
    const {agentStoreStats, spoolParseErrors, storeHealth} = await import('../core/store/doctor.js')
    const env = this.env
    const clock = this.clock()
    const problems: DoctorProblem[] = []
    const warnings: string[] = []

    // The store: open it, check it, bring it up to date.
    const dbPath = path.join(castHome(env), 'cast.db')
    let store: Store | null = null
    let storeReport: DoctorReport['store'] = {error: null, files: null, ok: false, parse_errors: null, path: dbPath, schema_version: null, sessions: null}
    let stats = new Map<string, AgentStoreStats>()
    let sweep: ScreenSweepStats | null = null
    let schemaVersion: number | null = null
    const {integrityOf, repairStore} = await import('../core/store/repair.js')
    if (flags.repair && fs.existsSync(dbPath)) {
      const check = integrityOf(dbPath)
      if (check === 'ok') {
        warnings.push('The store passed its integrity check: nothing to repair.')
      } else {
        const r = repairStore(castHome(env))
        const kept = Object.entries(r.copied).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${n}`).join(', ')
        const lost = Object.entries(r.unreadable).map(([t, n]) => `${t} ${n}`).join(', ')
        process.stderr.write(
          `cast: repaired the store (${check}): kept ${kept || 'nothing'}${lost ? `; unreadable rows: ${lost}` : ''}${r.lostTables.length > 0 ? `; unreadable tables: ${r.lostTables.join(', ')}` : ''}; re-reading the agents' files. The damaged file is ${r.damaged}\n`,
        )
      }
    }

    try {
      store = await this.openStore()
      const health = storeHealth(store)
      if (health.check !== 'ok') {
        // quick_check found damage: the full check says what, for the report.
        const full = integrityOf(dbPath)
        throw Object.assign(new Error(`integrity check failed: ${full === 'ok' ? health.check : full}`), {damaged: true})
      }

      schemaVersion = health.schemaVersion
    } catch (error) {
      const message = (error as Error).message
      store = null
      storeReport = {...storeReport, error: message}
      problems.push({agent: null, fix: storeFix(error as Error, dbPath), message: `The store cannot be read: ${message}`})
    }

    if (store !== null) {
      try {
        syncBeforeRead(store, env, clock, this.me)
      } catch (error) {
        warnings.push(`Reading the agents' files failed: ${(error as Error).message}`)
      }

      sweep = screenSweepOf(makeIngester(store, env, clock, this.me))?.() ?? null
      stats = agentStoreStats(store)
      storeReport = {
        error: null,
        files: store.countFiles(),
        ok: true,
        parse_errors: store.totalParseErrors(),
        path: dbPath,
        schema_version: schemaVersion,
        sessions: store.countSessions(),
      }
      const bad = spoolParseErrors(store)
      if (bad > 0) warnings.push(`${bad} hook payload(s) in the spool could not be read and were skipped.`)
    }

    // tmux and the config.
    const cfg = configPath(env)
    const overrides = readScreenOverrides(cfg)
    const matcher = screenMatcher(overrides)
    const cfgExists = fs.existsSync(cfg)
    for (const e of matcher.errors) warnings.push(`Config ${cfg}: ${e} (pattern ignored).`)
    // The config as commands read it: an invalid one is the same error they give, and a problem.
    try {
      const {loadConfig} = await import('../lib/config.js')
      await loadConfig(env)
    } catch (error) {
      problems.push({agent: null, fix: `Fix or move aside ${cfg}.`, message: (error as Error).message})
    }
    const tmuxBin = tmuxBinary(env)
    const {server} = tmuxServer(env)
    // Every tmux server the user owns ($TMUX_TMPDIR/tmux-<uid>/*), not only the default one.
    const {tmuxServers} = await import('../core/ingest/screen.js')
    const servers = tmuxServers(env).servers.map((x) => x.socket)
    const tmux: DoctorReport['tmux'] = {
      agent_panes: sweep?.agentPanes ?? 0,
      binary: tmuxBin,
      error: sweep?.error ?? null,
      panes: sweep?.panes ?? 0,
      read: sweep?.mapped ?? 0,
      server: server !== null && sweep?.tmux !== 'no_server',
      servers,
      socket: server?.socket ?? null,
    }

    // Each adapter.
    const ctx = adapterEnv(env)
    const {cliVersion} = await import('../lib/agent-versions.js')
    const adapters: DoctorAdapter[] = registry().adapters.map((adapter) => {
      const cli = adapter.cli ? cliVersion(adapter.cli, env.PATH) : null
      if (cli?.compared === 'newer') {
        warnings.push(`${adapter.label} ${cli.installed} is newer than ${cli.tested}, the version cast's conformance suite last passed with: what it writes may have changed.`)
      }

      const roots = [...new Set(adapter.roots(ctx))].map((p) => ({exists: fs.existsSync(p), path: p}))
      const s = stats.get(adapter.agent)
      const spec = HOOK_SPECS.find((h) => h.agent === adapter.agent)
      let hooks: DoctorHooks
      if (spec) {
        const st = hooksStatus(spec, {env})
        const hasCommand = st.command !== null
        hooks = {
          binary: st.binary,
          binary_exists: hasCommand ? st.binary_exists : null,
          file: st.file,
          note: st.error,
          state: st.state,
        }
        if (hasCommand && !st.binary_exists) {
          problems.push({
            agent: adapter.agent,
            fix: `cast hooks install ${spec.name}`,
            message: `${adapter.label}'s hooks run ${st.binary ?? st.command}, which does not exist: every hook the agent fires fails.`,
          })
        }

        const notify = st.toml
        if (notify && (notify.state === 'installed' || notify.state === 'stale') && notify.value) {
          const bin = /[^\s"',[\]]*cast-hook\b/.exec(notify.value)?.[0]
          if (bin && !fs.existsSync(bin)) {
            problems.push({agent: adapter.agent, fix: `cast hooks install ${spec.name}`, message: `${adapter.label}'s ${notify.key} runs ${bin}, which does not exist.`})
          }
        }

        if (st.state === 'error') warnings.push(`${adapter.label}: cannot read ${st.file}: ${st.error ?? 'unreadable'}.`)
      } else {
        const why = NO_HOOKS[adapter.agent]
        hooks = {binary: null, binary_exists: null, file: null, note: why ?? null, state: why ? 'unsupported' : 'unknown'}
      }

      const claims = s?.claims ?? {}
      const sources: StateSource[] = []
      const hooksOn = ['installed', 'partial', 'stale'].includes(hooks.state) && hooks.binary_exists !== false
      if (hooksOn) sources.push('hooks')
      if ((claims['registry'] ?? 0) > 0) sources.push('registry')
      if ((claims['lock'] ?? 0) > 0) sources.push('lock')
      if ((claims['process'] ?? 0) > 0) sources.push('open_file')
      const found = (s?.files ?? 0) > 0 || (s?.sessions ?? 0) > 0
      if (found) sources.push('transcript')
      const compiled = matcher.patterns.find((p) => p.agent === adapter.agent)
      const patternCounts = Object.fromEntries(SCREEN_KINDS.map((k) => [k, compiled?.kinds[k].length ?? 0]))
      // The screen only adds to sessions cast already knows from the agent's files.
      if (found && tmuxBin !== null && Object.values(patternCounts).some((n) => n > 0)) sources.push('screen')
      sources.sort((a, b) => SOURCE_ORDER.indexOf(a) - SOURCE_ORDER.indexOf(b))
      return {
        agent: adapter.agent,
        claims,
        cli,
        files: s?.files ?? 0,
        hook_sessions: s?.hookSessions ?? 0,
        hooks,
        label: adapter.label,
        parse_errors: s?.parseErrors ?? 0,
        roots,
        screen_patterns: patternCounts,
        screen_sessions: s?.screenSessions ?? 0,
        sessions: s?.sessions ?? 0,
        sources,
        state_source: sources[0] ?? null,
      }
    })

    const report: DoctorReport = {
      adapters,
      config: {exists: cfgExists, path: cfg, screen_pattern_errors: [...matcher.errors]},
      ok: problems.length === 0,
      problems,
      store: storeReport,
      tmux,
      warnings,
    }
    if (problems.length > 0) process.exitCode = 1
    if (this.jsonEnabled()) return report

    const t = (p: string): string => tildePath(p, env)
    const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`
    const st = report.store
    this.log(
      st.ok
        ? `store    ${t(st.path)}: ok (schema ${st.schema_version}, ${plural(st.sessions ?? 0, 'session')}, ${plural(st.files ?? 0, 'file')} read, ${plural(st.parse_errors ?? 0, 'malformed line')} skipped)`
        : `store    ${t(st.path)}: UNREADABLE (${st.error})`,
    )
    if (tmux.binary === null) this.log('tmux     not installed: no screen fallback')
    else if (!tmux.server) this.log(`tmux     ${tmux.binary}: no server running (the screen is read once one runs)`)
    else this.log(`tmux     ${tmux.binary}: ${plural(tmux.panes, 'pane')}, ${tmux.agent_panes} running an agent, ${tmux.read} tied to a session${tmux.error ? ` (error: ${tmux.error})` : ''}`)
    if (tmux.servers.length > 0) this.log(`         servers: ${tmux.servers.map((x) => t(x)).join(', ')}`)
    this.log(`config   ${t(cfg)}${cfgExists ? '' : ' (none)'}${Object.keys(overrides).length > 0 ? `: screen_patterns for ${Object.keys(overrides).join(', ')}` : ''}`)
    const HOOKS: Record<string, string> = {
      error: 'settings unreadable',
      installed: 'installed',
      not_installed: 'not installed',
      partial: 'partly installed',
      stale: 'installed, stale',
      unknown: 'unknown',
      unsupported: 'none (the agent has no shell hooks)',
    }
    for (const a of adapters) {
      this.log('')
      this.log(`${a.label} (${a.agent})  best source: ${a.state_source ?? 'none'}`)
      for (const [i, r] of a.roots.entries()) this.log(`  ${i === 0 ? 'roots   ' : '        '}  ${t(r.path)}  ${r.exists ? 'ok' : 'missing'}`)
      this.log(`  sessions  ${a.sessions} · ${plural(a.files, 'file')} read · ${plural(a.parse_errors, 'malformed line')} skipped`)
      if (a.cli) {
        const c = a.cli
        const v = c.path === null ? `${c.bin} not on PATH` : `${c.bin} ${c.installed ?? '(version unknown)'}${c.compared === 'newer' ? ' — NEWER than' : ' · conformance passed with'} ${c.tested}`
        this.log(`  cli       ${v}`)
      }
      const h = a.hooks
      const where = h.file ? ` (${t(h.file)})` : ''
      const bin = h.binary_exists === false ? `, binary MISSING: ${h.binary ?? '?'}` : ''
      const hint = h.state === 'not_installed' || h.state === 'stale' || h.state === 'partial' ? ` · cast hooks install ${HOOK_SPECS.find((x) => x.agent === a.agent)?.name}` : ''
      this.log(`  hooks     ${HOOKS[h.state] ?? h.state}${where}${bin}${hint}`)
      const parts = a.sources.map((src) => {
        if (src === 'hooks') return `hooks (${plural(a.hook_sessions, 'session')})`
        if (src === 'registry' || src === 'lock') return `${src} (${plural(a.claims[src] ?? 0, 'session')})`
        if (src === 'open_file') return `open file handle (${plural(a.claims['process'] ?? 0, 'session')})`
        if (src === 'screen') return `screen (${a.screen_sessions} read now)`
        return src
      })
      this.log(`  sources   ${parts.length > 0 ? parts.join(' > ') : 'none yet (no sessions found)'}`)
    }

    this.log('')
    for (const w of warnings) this.log(`warning: ${w}`)
    if (problems.length === 0) {
      this.log('No problems found.')
    } else {
      this.log(`${plural(problems.length, 'problem')}:`)
      for (const p of problems) this.log(`  ✗ ${p.message}${p.fix ? `\n    fix: ${p.fix}` : ''}`)
    }

    return report
  }
}

/**
 * What to do about a store that cannot be read. Only a damaged one is rebuilt (keeping cast's own
 * records); a store whose data is intact (permissions, a full disk, a lock, an untrusted folder)
 * is never to be moved aside: its fault is fixed where it is.
 */
function storeFix(error: Error & {code?: unknown; damaged?: boolean}, dbPath: string): string {
  const code = typeof error.code === 'string' ? error.code : ''
  const msg = error.message
  if (error.damaged || /SQLITE_(CORRUPT|NOTADB)|malformed|not a database|integrity check failed/i.test(`${code} ${msg}`)) {
    return "Run: cast doctor --repair (copies what can be read, keeping cast's own records, into a new store, keeps the damaged file beside it, and re-reads the agents' files)"
  }

  if (/refusing to use it|owned by uid|can be written by/.test(msg)) return 'Make the folder yours and private (chmod 700), or set CAST_HOME to a folder of your own.'
  if (/SQLITE_FULL|ENOSPC|EDQUOT|no space|disk is full/i.test(`${code} ${msg}`)) return `Free some space on the disk that holds ${dbPath}; nothing needs to be moved.`
  if (/SQLITE_(BUSY|LOCKED)|locked/i.test(`${code} ${msg}`)) return 'Another process held the store too long; run cast doctor again.'
  if (/READONLY|EROFS|EACCES|EPERM|read-only|readonly|permission/i.test(`${code} ${msg}`)) return `Make ${dbPath} and its folder writable by you again.`
  return `Check the file's permissions and the disk that holds ${dbPath}, then run cast doctor again.`
}
