import {Command} from '@oclif/core'
import fs from 'node:fs'
import os from 'node:os'
import {format} from 'node:util'

import {diskFull, noSpaceMessage} from '../core/store/disk.js'
import type {Store} from '../core/store/store.js'
import {CastError} from './cast-error.js'
import {castHome, clockFrom, type Env, UsageError, whoAmI} from './env.js'
import {EXIT} from './exit-codes.js'
import * as sanitizeModule from './sanitize.js'

/** Commands that never write cast's store: CAST_NOW only sets the clock they read with. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'daemon:status', 'decide:list', 'decide:show', 'demo', 'doctor', 'explain', 'feed', 'hooks:status', 'owners',
  'schedule:list', 'sessions', 'state:show', 'version', 'wait',
])

/** The longest text any argument or flag may carry (a message for send/schedule is at most this too). */
export const MAX_TEXT_ARG = 65_536

type OclifError = Error & {code?: string; exitCode?: number; oclif?: {exit?: false | number}}

// CastError lives in its own module (no oclif), so code that runs without oclif can throw it.
export {CastError} from './cast-error.js'

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true
  private storeHandle: Store | undefined

  /**
   * Every text argument has a size limit (issue 13 point 7): a command's own limits are tighter;
   * this one catches the rest (a pasted file as a flag) with one line instead of a slow failure.
   */
  override async init(): Promise<void> {
    for (const word of this.argv) {
      if (word.length > MAX_TEXT_ARG) {
        const name = /^--?[\w-]+(?==)/.exec(word)?.[0]
        throw new CastError(`${name ?? 'An argument'} is ${word.length} characters; the limit is ${MAX_TEXT_ARG}.`, EXIT.USAGE)
      }
    }

    await super.init()
  }

  protected get env(): Env {
    return process.env
  }

  protected get me(): string {
    return whoAmI(this.env)
  }

  protected clock(): () => number {
    try {
      return clockFrom(this.env)
    } catch (error) {
      throw new CastError((error as Error).message, EXIT.USAGE)
    }
  }

  protected now(): number {
    return this.clock()()
  }

  /**
   * The team branch of a verb (issue 17): when QUERY names a session (or, for "answer", a card)
   * that runs on another machine of the team, queue the action there, wait for its result (or
   * not, with --no-wait), print it and return the JSON; null when it is this machine's (or no
   * team): the verb then acts locally.
   */
  protected async remoteVerb(
    verb: import('../core/store/team/actions.js').ActionVerb,
    query: string,
    args: Record<string, unknown>,
    flags: {'no-wait'?: boolean; timeout?: string},
  ): Promise<Record<string, unknown> | null> {
    const store = await this.openStore()
    const {teamContext} = await import('../core/store/team/index.js')
    if (this.env.CAST_TEAM_LOCAL === '1') return null
    const {loadConfig} = await import('./config.js')
    const config = await loadConfig(this.env)
    if (!teamContext(store, this.env, config)) return null
    let timeoutMs = 30_000
    if (flags.timeout !== undefined) {
      const {parseDuration} = await import('../core/model/durations.js')
      const ms = parseDuration(flags.timeout)
      if (ms === null) throw new CastError(`--timeout "${flags.timeout}" is not a duration: try 10s or 2m.`, EXIT.USAGE)
      timeoutMs = ms
    }

    const {describeRemote, remoteRequest, RemoteError} = await import('../core/store/team/index.js')
    const {hasLocalCard} = await import('../core/store/outbox.js')
    const {deviceName} = await import('./env.js')
    const isLocal = (): boolean => {
      try {
        if (verb === 'answer') return hasLocalCard(store, query.trim())

        const q = query.trim().toLowerCase()
        return store.sessionIds().some((s) => s.id.startsWith(q) || s.nativeId.toLowerCase().startsWith(q))
      } catch {
        return true
      }
    }

    let r: Awaited<ReturnType<typeof remoteRequest>>
    try {
      r = await remoteRequest(store, this.env, config, this.me, deviceName(this.env), {args, query, verb}, {isLocal, noWait: flags['no-wait'] === true, timeoutMs})
    } catch (error) {
      if (error instanceof RemoteError) throw new CastError(error.message, error.exit)
      throw error
    }

    if (!r) return null
    const {exit, line} = describeRemote(r, timeoutMs)
    if (!this.jsonEnabled()) this.log(line)
    else if (exit !== 0) process.stderr.write(`cast: ${line}\n`)
    if (exit !== 0) process.exitCode = exit
    return {...r}
  }

  /** The store at CAST_HOME, opened once per command and closed in finally(). */
  protected async openStore(options: {readonly?: boolean} = {}): Promise<Store> {
    if (this.storeHandle) return this.storeHandle
    const {Store} = await import('../core/store/store.js')
    const home = castHome(this.env)
    try {
      this.storeHandle = new Store(home, options)
    } catch (error) {
      // SQLite cannot even open (e.g. create its -shm) in a read-only folder: say that, not CANTOPEN.
      if (!options.readonly && (error as Error).name === 'StoreOpenError' && !writable(home)) {
        throw readOnlyHome(home, (error as Error).message.replace(/^.*?: /, ''))
      }

      throw new CastError((error as Error).message, (error as {exit?: number}).exit ?? EXIT.FAILURE)
    }

    if (!options.readonly) await this.refuseTestClock(this.storeHandle)
    return this.storeHandle
  }

  /**
   * CAST_NOW is a test clock (README "Environment"): a command that writes refuses it while a live
   * ingester on real time holds the lease, so a test's fixed time never lands in a real store.
   */
  private async refuseTestClock(store: Store): Promise<void> {
    if (!this.env.CAST_NOW?.trim() || READ_ONLY_COMMANDS.has(this.id ?? '')) return
    const {INGESTER_LEASE, leaseIsLive} = await import('./ingest.js')
    const lease = store.getLease(INGESTER_LEASE)
    if (!leaseIsLive(lease) || holderOnTestClock(lease!)) return
    store.close()
    this.storeHandle = undefined
    throw new CastError(
      `CAST_NOW is a test clock and a live ingester (pid ${lease!.pid}) runs on real time over this store: nothing was written. Unset CAST_NOW, or point CAST_HOME at a test store.`,
      EXIT.USAGE,
    )
  }

  /**
   * Human output: a string that came from an agent or a user (a title, a state line, a label, an
   * error) may carry ESC/OSC sequences; every control character is shown, not obeyed (issue 13
   * point 3). Styled output cast rendered itself (already sanitized row by row) goes through
   * logStyled.
   */
  override log(message = '', ...args: unknown[]): void {
    const {visible} = sanitizeModule
    super.log(visible(args.length > 0 ? format(message, ...args) : message))
  }

  /** Output cast styled itself, whose agent strings were made visible when rendered. */
  protected logStyled(text: string): void {
    super.log(text)
  }

  /**
   * oclif's logJson colourises through a regex tokenizer over the whole output, even when piped:
   * 0.9 s of a 10,000-session listing. Print the same bytes directly.
   */
  override logJson(json: unknown): void {
    process.stdout.write(JSON.stringify(json, null, 2) + '\n')
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    this.storeHandle?.close()
    this.storeHandle = undefined
    return super.finally(err)
  }

  /** Fail with a one-line message and an exit code from the table. */
  protected fail(message: string, exit: number, suggestions: string[] = []): never {
    throw new CastError(message, exit, suggestions)
  }

  // Command.catch() reads err.exitCode and ignores err.oclif.exit when --json is set,
  // so this.error(msg, {exit: 3}) would exit 1 under --json. Carry the code across, and under
  // --json print the one documented envelope for every error (oclif's own would dump its config).
  protected override async catch(err: OclifError): Promise<unknown> {
    const {errorEnvelope, humanError, isParseError, parseErrorMessage} = await import('./errors.js')
    const fault = storeFault(err, castHome(this.env))
    if (fault) err = fault
    let exit: number
    let message: string
    let suggestions: string[] = []
    if (err instanceof CastError || err instanceof UsageError) {
      exit = err instanceof CastError ? err.exit : EXIT.USAGE
      message = err.message
      suggestions = err instanceof CastError ? err.suggestions : []
    } else if (err.name === 'SchemaFromFutureError' || err.name === 'StoreOpenError') {
      exit = EXIT.FAILURE
      message = err.message
    } else if (err.code === 'EEXIT' || err.name === 'ExitError') {
      // this.exit(n): not an error to report.
      process.exitCode = err.oclif?.exit === undefined || err.oclif.exit === false ? 0 : err.oclif.exit
      return
    } else if (isParseError(err)) {
      // oclif's parse errors (bad flag, bad value, missing argument) are usage errors.
      exit = EXIT.USAGE
      message = parseErrorMessage(err)
      suggestions = [`See: cast ${this.id?.replaceAll(':', ' ') ?? ''} --help`.replace(/\s+--help$/, ' --help')]
    } else {
      exit = err.exitCode ?? (typeof err.oclif?.exit === 'number' ? err.oclif.exit : EXIT.FAILURE)
      message = parseErrorMessage(err)
      if (!this.jsonEnabled() && exit === EXIT.FAILURE && process.env.CAST_DEBUG) return super.catch(err)
    }

    if (this.jsonEnabled()) process.stdout.write(JSON.stringify(errorEnvelope(message, exit, suggestions)) + '\n')
    else process.stderr.write(humanError(message, suggestions))
    process.exitCode = exit
  }
}

/**
 * The lease records real heartbeats whatever clock its holder classifies with; a holder that
 * runs on CAST_NOW itself (a test's watcher or daemon, same host) is no real-time ingester.
 */
function holderOnTestClock(lease: {pid: number; host: string}): boolean {
  if (lease.host !== os.hostname()) return false
  try {
    return fs
      .readFileSync(`/proc/${lease.pid}/environ`, 'latin1')
      .split('\0')
      .some((kv) => kv.startsWith('CAST_NOW=') && kv.slice('CAST_NOW='.length).trim() !== '')
  } catch {
    return false
  }
}

function readOnlyHome(home: string, why: string): CastError {
  return new CastError(`CAST_HOME ${home} is read-only (${why}): nothing was changed.`, EXIT.FAILURE, [
    'Make it writable again, or set CAST_HOME to a writable folder.',
  ])
}

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK)
    return true
  } catch (error) {
    return !['EROFS', 'EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')
  }
}

/**
 * A store that cannot be written (read-only, full, failing disk, damaged, locked too long)
 * becomes one line naming CAST_HOME and what to do, not a SqliteError with its stack. SQLite
 * rolled the transaction back: nothing half-written is left behind.
 */
export function storeFault(err: Error & {code?: unknown}, home: string): CastError | null {
  const code = typeof err.code === 'string' ? err.code : ''
  // File-system errors count only for files under CAST_HOME (a hook settings file is not ours to explain).
  const file = (err as {path?: unknown}).path
  const inHome = typeof file === 'string' && (file === home || file.startsWith(home + '/'))
  if (err.name !== 'SqliteError' && !(inHome && ['EROFS', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM'].includes(code))) return null
  const why = err.message.replace(/\s+/g, ' ').trim()
  if (/^SQLITE_READONLY/.test(code) || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return readOnlyHome(home, why)

  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || (/^SQLITE_IOERR/.test(code) && diskFull(home))) {
    return new CastError(noSpaceMessage(home, why), EXIT.FAILURE, [
      'Free some space and run the command again.',
    ])
  }

  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) {
    return new CastError(`The cast store in ${home} stayed locked by another process (${why}): nothing was changed.`, EXIT.FAILURE, ['Run the command again.'])
  }

  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) {
    return new CastError(`The cast store ${home}/cast.db is damaged (${why}).`, EXIT.FAILURE, [
      "Run: cast doctor --repair (copies what can be read, keeping cast's own records, into a new store and re-reads the agents' files).",
    ])
  }

  if (/^SQLITE_(IOERR|CANTOPEN)/.test(code)) {
    return new CastError(`The cast store in ${home} could not be read or written (${code}: ${why}).`, EXIT.FAILURE)
  }

  return null
}
