/**
 * `cast doctor`'s checks (the command is wiring): the store (opened, checked,
 * repaired on request, brought up to date), tmux, the config, and for every adapter its roots,
 * what it read, its hooks, its CLI version and the best source of state it has. The store's SQL
 * stays in src/core/store/doctor.ts and repair.ts.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Adapter} from '../../../core/ingest/adapter.js'
import {
  readScreenOverrides,
  screenSweepOf,
  type ScreenSweepStats,
  tmuxBinary,
  tmuxServer,
  tmuxServers,
} from '../../../core/ingest/screen.js'
import {agentStoreStats, type AgentStoreStats, spoolParseErrors, storeHealth} from '../../../core/store/doctor.js'
import {integrityOf, repairStore} from '../../../core/store/repair.js'
import type {Store} from '../../../core/store/store.js'
import {type AgentCliVersion, cliVersion} from '../../agents/agent-versions.js'
import {configPath, loadConfig} from '../../home/config.js'
import {castHome, type Env} from '../../home/env.js'
import {HOOK_SPECS, hooksStatus, NO_HOOKS} from '../../agents/hooks/index.js'
import {adapterEnv, makeIngester, registry, SCREEN_KINDS, screenMatcher, syncBeforeRead} from '../../ingest/ingest.js'

/** State sources, best first: what can tell cast that a session waits. */
export const SOURCE_ORDER = ['hooks', 'registry', 'lock', 'open_file', 'transcript', 'screen'] as const
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

export interface DoctorContext {
  readonly env: Env
  readonly clock: () => number
  readonly me: string
  /** --repair: rebuild a store whose integrity check fails. */
  readonly repair: boolean
  /** The command's store (opened once, closed by the command). */
  readonly openStore: () => Promise<Store>
  /** A line for stderr (what a repair kept and lost). */
  readonly warn: (line: string) => void
}

/** Everything doctor checks, as the report `cast doctor --json` prints. */
export async function doctorReport(ctx: DoctorContext): Promise<DoctorReport> {
  const problems: DoctorProblem[] = []
  const warnings: string[] = []
  const store = await checkedStore(ctx, problems, warnings)
  const cfg = configPath(ctx.env)
  const matcher = screenMatcher(readScreenOverrides(cfg))
  for (const e of matcher.errors) warnings.push(`Config ${cfg}: ${e} (pattern ignored).`)
  // The config as commands read it: an invalid one is the same error they give, and a problem.
  try {
    await loadConfig(ctx.env)
  } catch (error) {
    problems.push({agent: null, fix: `Fix or move aside ${cfg}.`, message: (error as Error).message})
  }

  const tmux = tmuxReport(ctx.env, store.sweep)
  const adapters = registry().adapters.map((adapter) =>
    adapterReport(adapter, {env: ctx.env, matcher, problems, stats: store.stats.get(adapter.agent), tmux: tmux.binary, warnings}),
  )
  return {
    adapters,
    config: {exists: fs.existsSync(cfg), path: cfg, screen_pattern_errors: [...matcher.errors]},
    ok: problems.length === 0,
    problems,
    store: store.report,
    tmux,
    warnings,
  }
}

interface CheckedStore {
  readonly report: DoctorReport['store']
  readonly stats: ReadonlyMap<string, AgentStoreStats>
  readonly sweep: ScreenSweepStats | null
}

/** The store: repair it on request, open it, check it, bring it up to date. */
async function checkedStore(ctx: DoctorContext, problems: DoctorProblem[], warnings: string[]): Promise<CheckedStore> {
  const dbPath = path.join(castHome(ctx.env), 'cast.db')
  if (ctx.repair && fs.existsSync(dbPath)) repair(ctx, dbPath, warnings)
  let store: Store
  let schemaVersion: number | null
  try {
    store = await ctx.openStore()
    const health = storeHealth(store)
    if (health.check !== 'ok') {
      // quick_check found damage: the full check says what, for the report.
      const full = integrityOf(dbPath)
      throw Object.assign(new Error(`integrity check failed: ${full === 'ok' ? health.check : full}`), {damaged: true})
    }

    schemaVersion = health.schemaVersion
  } catch (error) {
    const message = (error as Error).message
    problems.push({agent: null, fix: storeFix(error as Error, dbPath), message: `The store cannot be read: ${message}`})
    return {
      report: {error: message, files: null, ok: false, parse_errors: null, path: dbPath, schema_version: null, sessions: null},
      stats: new Map(),
      sweep: null,
    }
  }

  try {
    syncBeforeRead(store, ctx.env, ctx.clock, ctx.me)
  } catch (error) {
    warnings.push(`Reading the agents' files failed: ${(error as Error).message}`)
  }

  const sweep = screenSweepOf(makeIngester(store, ctx.env, ctx.clock, ctx.me))?.() ?? null
  const stats = agentStoreStats(store)
  const report = {
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
  return {report, stats, sweep}
}

/** --repair: a store that fails its integrity check is rebuilt (cast's own records kept). */
function repair(ctx: DoctorContext, dbPath: string, warnings: string[]): void {
  const check = integrityOf(dbPath)
  if (check === 'ok') {
    warnings.push('The store passed its integrity check: nothing to repair.')
    return
  }

  const r = repairStore(castHome(ctx.env))
  const kept = Object.entries(r.copied)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ')
  const lost = Object.entries(r.unreadable)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ')
  ctx.warn(
    `cast: repaired the store (${check}): kept ${kept || 'nothing'}${lost ? `; unreadable rows: ${lost}` : ''}${r.lostTables.length > 0 ? `; unreadable tables: ${r.lostTables.join(', ')}` : ''}; re-reading the agents' files. The damaged file is ${r.damaged}\n`,
  )
}

/** tmux: its binary, the default server, and every server socket the user owns ($TMUX_TMPDIR/tmux-<uid>/*). */
function tmuxReport(env: Env, sweep: ScreenSweepStats | null): DoctorReport['tmux'] {
  const {server} = tmuxServer(env)
  return {
    agent_panes: sweep?.agentPanes ?? 0,
    binary: tmuxBinary(env),
    error: sweep?.error ?? null,
    panes: sweep?.panes ?? 0,
    read: sweep?.mapped ?? 0,
    server: server !== null && sweep?.tmux !== 'no_server',
    servers: tmuxServers(env).servers.map((x) => x.socket),
    socket: server?.socket ?? null,
  }
}

interface AdapterInputs {
  readonly env: Env
  readonly stats: AgentStoreStats | undefined
  readonly matcher: ReturnType<typeof screenMatcher>
  /** The tmux binary (null: none, so no screen source). */
  readonly tmux: string | null
  readonly problems: DoctorProblem[]
  readonly warnings: string[]
}

/** One adapter: roots, what was read, hooks, the CLI's version, and its sources best first. */
function adapterReport(adapter: Adapter, inputs: AdapterInputs): DoctorAdapter {
  const {env, matcher, stats: s, warnings} = inputs
  const cli = adapter.cli ? cliVersion(adapter.cli, env.PATH) : null
  if (cli?.compared === 'newer') {
    warnings.push(
      `${adapter.label} ${cli.installed} is newer than ${cli.tested}, the version cast's conformance suite last passed with: what it writes may have changed.`,
    )
  }

  const roots = [...new Set(adapter.roots(adapterEnv(env)))].map((p) => ({exists: fs.existsSync(p), path: p}))
  const hooks = hooksReport(adapter, env, inputs.problems, warnings)
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
  if (found && inputs.tmux !== null && Object.values(patternCounts).some((n) => n > 0)) sources.push('screen')
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
}

/** An adapter's hooks as `cast hooks status` reads them; a hook that runs a missing binary is a problem. */
function hooksReport(adapter: Adapter, env: Env, problems: DoctorProblem[], warnings: string[]): DoctorHooks {
  const spec = HOOK_SPECS.find((h) => h.agent === adapter.agent)
  if (!spec) {
    const why = NO_HOOKS[adapter.agent]
    return {binary: null, binary_exists: null, file: null, note: why ?? null, state: why ? 'unsupported' : 'unknown'}
  }

  const st = hooksStatus(spec, {env})
  const hasCommand = st.command !== null
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
      problems.push({
        agent: adapter.agent,
        fix: `cast hooks install ${spec.name}`,
        message: `${adapter.label}'s ${notify.key} runs ${bin}, which does not exist.`,
      })
    }
  }

  if (st.state === 'error') warnings.push(`${adapter.label}: cannot read ${st.file}: ${st.error ?? 'unreadable'}.`)
  return {
    binary: st.binary,
    binary_exists: hasCommand ? st.binary_exists : null,
    file: st.file,
    note: st.error,
    state: st.state,
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

  if (/refusing to use it|owned by uid|can be written by/.test(msg))
    return 'Make the folder yours and private (chmod 700), or set CAST_HOME to a folder of your own.'
  if (/SQLITE_FULL|ENOSPC|EDQUOT|no space|disk is full/i.test(`${code} ${msg}`))
    return `Free some space on the disk that holds ${dbPath}; nothing needs to be moved.`
  if (/SQLITE_(BUSY|LOCKED)|locked/i.test(`${code} ${msg}`)) return 'Another process held the store too long; run cast doctor again.'
  if (/READONLY|EROFS|EACCES|EPERM|read-only|readonly|permission/i.test(`${code} ${msg}`))
    return `Make ${dbPath} and its folder writable by you again.`
  return `Check the file's permissions and the disk that holds ${dbPath}, then run cast doctor again.`
}
