/**
 * `cast state TEXT [--status S] [--session ID] [--json]` without oclif, for bin/run.js: agents run
 * it every turn. It answers the common case, with the same bytes and exit codes as the command
 * (src/commands/state/index.ts): the session is named by --session, CAST_SESSION or the agent's
 * own variable (with its process live in the store) and resolves to exactly one known session by
 * a keyed lookup; a live ingester keeps the store current, else that session's own files are
 * synced (src/lib/ingest/ingest.ts syncOneSession), not the whole history. Anything else (a session not yet in the store, a process-tree search,
 * stdin, a bad flag, help, an error to report) returns false and oclif runs the command.
 */
import {DECLARED_STATUSES, type DeclaredStatus} from '../../core/model/types.js'
import {castHome, clockFrom} from '../home/env.js'
import {MAX_TEXT_ARG} from './limits.js'

/** A state line is a short block: a sane limit keeps the inbox readable. */
export const MAX_STATE_TEXT = 4000

interface StateArgs {
  text: string
  status: DeclaredStatus
  session: string | undefined
  json: boolean
}

function parse(argv: readonly string[]): StateArgs | null {
  let text: string | undefined
  let status: string | undefined
  let session: string | undefined
  let json = false
  let positional = true
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a.length > MAX_TEXT_ARG) return null
    if (positional && a === '--') positional = false
    else if (positional && a === '--json') json = true
    else if (positional && (a === '--status' || a === '--session')) {
      const v = argv[++i]
      if (v === undefined || v.startsWith('-')) return null
      if (a === '--status') status = v
      else session = v
    } else if (positional && a.startsWith('--status=')) status = a.slice('--status='.length)
    else if (positional && a.startsWith('--session=')) session = a.slice('--session='.length)
    else if (positional && a.startsWith('-')) return null
    else if (text === undefined) text = a
    else return null
  }

  // What the command refuses or reads otherwise (no text, stdin, a subcommand) goes to oclif.
  if (text === undefined || text === '-' || text === 'show' || text === 'clear') return null
  if (status !== undefined && !(DECLARED_STATUSES as readonly string[]).includes(status)) return null
  text = text.replace(/\s+$/, '')
  const declared = (status ?? 'working') as DeclaredStatus
  if (text.length > MAX_STATE_TEXT || (declared === 'dormant' && text.trim() === '')) return null
  return {json, session: session === '' ? undefined : session, status: declared, text}
}

export async function fastState(argv: readonly string[]): Promise<boolean> {
  const env = process.env
  const args = parse(argv)
  // A test clock is refused by the command while a live ingester runs: leave that to it.
  if (args === null || env.CAST_NOW?.trim()) return false
  const home = castHome(env)
  const fs = await import('node:fs')
  const path = await import('node:path')
  if (!fs.existsSync(path.join(home, 'cast.db'))) return false
  const {Store} = await import('../../core/store/store.js')
  const {INGESTER_LEASE, leaseIsLive} = await import('../ingest/lease.js')
  let store
  try {
    store = new Store(home)
  } catch {
    return false
  }

  try {
    const found = await ownSession(store, args.session, env)
    if (found === null) return false
    // Found through the agent's own variable while the store says its process is not live: the
    // command checks the caller's ancestry first (src/lib/agents/self-session.ts ancestryProcess).
    if (found.via !== '--session' && found.via !== 'CAST_SESSION') {
      const {isProcessLive} = await import('../../core/model/work-state.js')
      if (!isProcessLive(store.loadSessions([found.id])[0]!.facts.process)) return false
    }

    const clock = clockFrom(env)
    if (leaseIsLive(store.getLease(INGESTER_LEASE))) {
      const {sweepSnoozes} = await import('../../core/store/triage.js')
      // As a synced store does (src/lib/ingest/ingest.ts syncBeforeRead): snoozes that came due wake first.
      sweepSnoozes(store, clock())
    } else {
      // No live ingester: this session's own files, the hook spool and due snoozes, not the whole history.
      const {syncOneSession} = await import('../ingest/ingest.js')
      const {whoAmI} = await import('../home/env.js')
      const row = store.loadSessions([found.id])[0]!
      syncOneSession(store, env, clock, whoAmI(env), row)
    }

    const now = clock()
    store.tx(() => {
      const row = store.loadSessions([found.id])[0]!
      store.patchRecords(found.id, {
        declaration: {at: now, messages: row.facts.messages, status: args.status, text: args.text, turnIndex: row.facts.turnIndex},
      })
      store.reconcile(now, [found.id])
    })
    // Declared: from here on an error is reported, never handed to oclif (which would declare again).
    await report(store, found, args, env, now).catch((error: Error) => {
      process.stderr.write(`cast: the state was declared, but printing it failed: ${error.message}\n`)
      process.exitCode = 1
    })
    return true
  } finally {
    store.close()
  }
}

async function report(
  store: OpenStore,
  found: {id: string; via: string},
  args: StateArgs,
  env: NodeJS.ProcessEnv,
  now: number,
): Promise<void> {
  const row = store.loadSessions([found.id])[0]!
  const {setDeclaredMark} = await import('../agents/turn-marks.js')
  setDeclaredMark(env, row.agent, row.nativeId, args.status !== 'working')
  if (args.json) {
    const {sessionJson} = await import('../views/views.js')
    const {whoAmI} = await import('../home/env.js')
    process.stdout.write(JSON.stringify({session: sessionJson(row, whoAmI(env), now), via: found.via}, null, 2) + '\n')
  } else {
    const {shortId} = await import('../../core/model/ids.js')
    const head = args.text ? ` — ${args.text.split('\n')[0]}` : ''
    process.stdout.write(`${shortId(row.id)}: ${args.status}${head}  (now ${row.state}:${row.reason}; found via ${found.via})\n`)
  }
}

type OpenStore = InstanceType<typeof import('../../core/store/store.js').Store>

/**
 * The session named by --session, CAST_SESSION or an agent's variable, found by a keyed lookup
 * as src/lib/agents/self-session.ts finds it; null when it is not exactly one (the command then says why).
 */
async function ownSession(store: OpenStore, flag: string | undefined, env: NodeJS.ProcessEnv): Promise<{id: string; via: string} | null> {
  const {resolveTyped} = await import('../../core/model/ids.js')
  const one = (typed: string): string | null => {
    const r = resolveTyped(typed, store.sessionIdCandidates(typed.trim()))
    return r.kind === 'one' ? r.id : null
  }

  if (flag) {
    const id = one(flag)
    return id === null ? null : {id, via: env.CAST_SESSION === flag ? 'CAST_SESSION' : '--session'}
  }

  if (env.CAST_SESSION) {
    const id = one(env.CAST_SESSION)
    return id === null ? null : {id, via: 'CAST_SESSION'}
  }

  const {SESSION_VARIABLES} = await import('../../adapters/session-variables.js')
  for (const v of SESSION_VARIABLES) {
    const value = env[v.name]
    if (!value) continue
    const hit = store.sessionIdCandidates(value).find((k) => k.agent === v.agent && k.nativeId === value)
    if (hit) return {id: hit.id, via: v.name}
  }

  return null
}
