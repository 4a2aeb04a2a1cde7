/**
 * `cast sessions` without oclif, for bin/run.js: loading oclif and its config costs
 * more than a no-op sync and the listing together. Handles the listing invocations a person or
 * a script types most (`cast sessions`, `--json`, `--all`, `--agent A`, `--state S,…`, `--cwd D`,
 * `--label L`, `--only-quiet`, `--no-pager`) with the same code as the oclif command (src/lib/views/sessions-list.ts), so
 * the bytes are the same; returns false, having printed nothing, for anything else (help, -w, a
 * flag it does not take, a value oclif would refuse, any error before output), which oclif then
 * handles exactly as before.
 */
import type {Agent, WorkState} from '../../core/model/types.js'
import type {SessionsListFlags} from '../views/sessions-list.js'

/** Longer arguments go to oclif, which applies the real limit (MAX_TEXT_ARG, limits.ts) with its message. */
const LONG_ARG = 4096

interface Parsed {
  readonly json: boolean
  readonly flags: SessionsListFlags
}

/**
 * The argv after `sessions`, or null for anything the fast path leaves to oclif. Conservative:
 * a repeated single flag, an empty value, a value that looks like a flag, a stray word (oclif
 * would take it into a multiple flag or refuse it) all go to oclif.
 */
export async function parseSessionsArgv(argv: readonly string[]): Promise<Parsed | null> {
  // flag-values loads the adapters' registry: only for the values that need it.
  const values = argv.some((a) => a.startsWith('--agent') || a.startsWith('--state')) ? await import('./flag-values.js') : null
  const single = new Map<string, string | true>()
  const states: WorkState[] = []
  const BOOLEANS = new Set(['--all', '--json', '--no-pager', '--only-quiet', '--pager', '--quiet'])
  const VALUES = new Set(['--agent', '--cwd', '--label', '--state'])
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a.length > LONG_ARG) return null
    if (BOOLEANS.has(a)) {
      if (single.has(a)) return null
      single.set(a, true)
      continue
    }

    const eq = a.indexOf('=')
    const name = eq > 0 ? a.slice(0, eq) : a
    if (!VALUES.has(name)) return null
    let value: string
    if (eq > 0) value = a.slice(eq + 1)
    else {
      if (i + 1 >= argv.length) return null
      value = argv[++i]!
    }

    if (value.trim() === '' || value.startsWith('-') || value.length > LONG_ARG) return null
    if (name === '--state') {
      for (const part of value.split(',')) {
        try {
          states.push(values!.parseState(part))
        } catch {
          return null
        }
      }

      continue
    }

    // A list in one value (`--agent a,b`, `--label x,y`) is oclif's to split: leave it to it.
    if (single.has(name) || ((name === '--agent' || name === '--label') && value.includes(','))) return null
    single.set(name, value)
  }

  let agent: Agent[] | undefined
  const agentText = single.get('--agent')
  if (typeof agentText === 'string') {
    try {
      agent = [values!.parseAgent(agentText)]
    } catch {
      return null
    }
  }

  if (single.has('--pager') && single.has('--no-pager')) return null
  if (single.has('--quiet') && single.has('--only-quiet')) return null
  const json = single.has('--json')
  const text = (k: string): string | undefined => {
    const v = single.get(k)
    return typeof v === 'string' ? v : undefined
  }

  return {
    flags: {
      agent,
      all: single.has('--all') ? true : undefined,
      cwd: text('--cwd'),
      label: text('--label') === undefined ? undefined : [text('--label')!.trim()],
      // --pager and --no-pager together: oclif takes the last; the fast path leaves that to it (above).
      pager: single.has('--no-pager') ? false : undefined,
      quiet: single.has('--quiet') || single.has('--only-quiet') ? true : undefined,
      state: states.length > 0 ? states : undefined,
    },
    json,
  }
}

/**
 * The whole listing for bin/run.js; true when it answered (output written, exit code set),
 * false when oclif should run the command instead (nothing was printed on stdout).
 */
export async function fastSessions(argv: readonly string[]): Promise<boolean> {
  const env = process.env
  // oclif reads CAST_CONTENT_TYPE=json as --json: leave such a run to it.
  if (env.CAST_CONTENT_TYPE !== undefined) return false
  const parsed = await parseSessionsArgv(argv)
  if (!parsed) return false
  const {castHome, clockFrom, whoAmI} = await import('../home/env.js')
  if (await warmSessions(argv, parsed, castHome(env), whoAmI(env))) return true
  const {Store} = await import('../../core/store/store.js')
  const {listSessions} = await import('../views/sessions-list.js')
  const {visible} = await import('../../core/model/sanitize.js')
  // As oclif does: a reader that goes away (cast sessions | head) is not an error.
  const onError = (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE') throw error
  }

  process.stdout.on('error', onError)
  let wrote = false
  let store: InstanceType<typeof Store> | undefined
  try {
    store = Store.forReading(castHome(env))
    const clock = clockFrom(env)
    const listing = await listSessions(store, env, clock, whoAmI(env), parsed.flags, {
      json: parsed.json,
      line(text) {
        wrote = true
        console.log(visible(text))
      },
      styled(text) {
        wrote = true
        console.log(text)
      },
      write(chunk) {
        wrote = true
        process.stdout.write(chunk)
      },
    })
    if (listing && parsed.json) {
      wrote = true
      // BaseCommand.logJson's bytes.
      process.stdout.write(JSON.stringify(listing, null, 2) + '\n')
    }
  } catch (error) {
    // Nothing printed yet: oclif runs the command again and reports the error its way.
    if (!wrote) {
      process.stdout.off('error', onError)
      return false
    }

    const {EXIT} = await import('../base/exit-codes.js')
    const {errorEnvelope, humanError} = await import('./errors.js')
    const message = (error as Error).message
    if (parsed.json) process.stdout.write(JSON.stringify(errorEnvelope(message, EXIT.FAILURE)) + '\n')
    else process.stderr.write(humanError(message))
    process.exitCode = EXIT.FAILURE
  } finally {
    store?.close()
  }

  return true
}

/**
 * With `cast daemon` running, its answer over the socket (src/lib/home/read-socket.ts): the same
 * bytes, without this process loading the store. A human listing for a terminal (colours, width,
 * pager) and `--cwd` (a folder relative to this one) are answered here; so is anything the daemon
 * declines. True when the daemon's answer was printed.
 */
async function warmSessions(argv: readonly string[], parsed: Parsed, home: string, me: string): Promise<boolean> {
  // isatty, not process.stdout.isTTY: the stream would load the tty and net modules.
  if (parsed.flags.cwd !== undefined || (!parsed.json && (await import('node:tty')).isatty(1))) return false
  const fs = await import('node:fs')
  const path = await import('node:path')
  if (!fs.existsSync(path.join(home, 'run'))) return false
  const {askDaemonRead, envOf, timeZone, writeAll} = await import('../home/read-socket.js')
  const warm = await askDaemonRead(home, {argv: [...argv], cmd: 'sessions', env: envOf(process.env), me, tz: timeZone()})
  if (warm === null) return false
  writeAll(1, warm.stdout)
  process.exitCode = warm.code
  return true
}
