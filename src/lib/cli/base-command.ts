import {Command, type Interfaces} from '@oclif/core'
import fs from 'node:fs'
import os from 'node:os'
import {format} from 'node:util'

import type {SyncStats} from '../../core/ingest/engine.js'
import type {Store} from '../../core/store/store.js'
import type {RemoteOutcome} from '../team/request.js'
import {CastError} from '../base/cast-error.js'
import {classifyError, errorEnvelope, humanError, parseFailure, readOnlyHome, writable} from './errors.js'
import {castHome, clockFrom, type Env, whoAmI} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {MAX_TEXT_ARG} from '../base/limits.js'
import type {SyncBeforeReadOptions} from '../ingest/ingest.js'
import * as sanitizeModule from '../../core/model/sanitize.js'

export {CastError, storeFault} from './errors.js'

/** Commands that never write cast's store: CAST_NOW only sets the clock they read with. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'daemon:status',
  'decide:list',
  'decide:show',
  'demo',
  'doctor',
  'explain',
  'feed',
  'hooks:status',
  'owners',
  'schedule:list',
  'sessions',
  'state:show',
  'version',
  'wait',
])

// oclif's parser output shapes (not exported by @oclif/core's index).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type FlagOutput = {[name: string]: any}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ArgOutput = {[name: string]: any}

/** What `syncedStore` hands a command: the store brought up to date, and the clock it was synced with. */
export interface SyncedStore {
  readonly store: Store
  readonly clock: () => number
  /** What the sync read; null when a live ingester keeps the store current. */
  readonly synced: SyncStats | null
}

/** The JSON of a verb carried out on another machine of the team (src/lib/team/request.ts). */
export type RemoteVerbJson = RemoteOutcome

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true
  private storeHandle: Store | undefined

  /**
   * Every text argument has a size limit: a command's own limits are tighter;
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
   * oclif's parse, with whatever it throws made one usage error (exit 2) by its class: the
   * parser's errors, a builtin flag's, and a flag value cast refused (src/lib/cli/time-flags.ts).
   */
  protected override async parse<F extends FlagOutput, B extends FlagOutput, A extends ArgOutput>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      return await super.parse(options, argv)
    } catch (error) {
      const input = options ?? (this.ctor as unknown as Interfaces.Input<F, B, A>)
      // The command's own flags and oclif's base ones (--json): the names a typo is measured against.
      throw parseFailure(error, this.id, {...(input.baseFlags ?? {}), ...(input.flags ?? {})})
    }
  }

  /**
   * The store at CAST_HOME brought up to date for a read: one incremental sync when no live
   * ingester holds the lease (lib/ingest/ingest.ts syncBeforeRead, through quick-sync.ts: the
   * adapters' parsers load only when something changed), with the command's clock.
   */
  protected async syncedStore(options: SyncBeforeReadOptions = {}, forReading = false): Promise<SyncedStore> {
    const store = await this.openStore({forReading})
    const clock = this.clock()
    return {clock, store, synced: await this.sync(store, clock, options)}
  }

  /** One more sync of an open store (a command that polls, or one that opened it for something else first). */
  protected async sync(store: Store, clock: () => number, options: SyncBeforeReadOptions = {}): Promise<SyncStats | null> {
    // A read-only CAST_HOME (openStore forReading): nothing can be synced; the stored inbox stands.
    if (store.stale) return null
    const {syncBeforeReadQuick} = await import('../ingest/quick-sync.js')
    return syncBeforeReadQuick(store, this.env, clock, this.me, options)
  }

  /**
   * The team branch of a verb (src/lib/team/request.ts): when QUERY names a session (or, for
   * "answer", a card) that runs on another machine of the team, the action is queued there and
   * its outcome printed and returned; null when it is this machine's (or no team).
   */
  protected async remoteVerb(
    verb: import('../team/protocol.js').ActionVerb,
    query: string,
    args: Readonly<Record<string, unknown>>,
    flags: {'no-wait'?: boolean; timeout?: number},
  ): Promise<RemoteVerbJson | null> {
    if (this.env.CAST_TEAM_LOCAL === '1') return null
    const {remoteVerb} = await import('../team/request.js')
    const r = await remoteVerb(await this.openStore(), this.env, this.me, {args, query, verb}, flags)
    if (!r) return null
    if (!this.jsonEnabled()) this.log(r.line)
    else if (r.exit !== 0) process.stderr.write(`cast: ${r.line}\n`)
    if (r.exit !== 0) process.exitCode = r.exit
    return {...r.json}
  }

  /** The store at CAST_HOME, opened once per command and closed in finally(). */
  protected async openStore(options: {readonly?: boolean; forReading?: boolean} = {}): Promise<Store> {
    if (this.storeHandle) return this.storeHandle
    const {Store} = await import('../../core/store/store.js')
    const home = castHome(this.env)
    try {
      // forReading: a command that only reads may read a read-only CAST_HOME's store as it is (stale).
      this.storeHandle = options.forReading ? Store.forReading(home) : new Store(home, options)
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
    const {INGESTER_LEASE, leaseIsLive} = await import('../ingest/ingest.js')
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
   * error) may carry ESC/OSC sequences; every control character is shown, not obeyed. Styled output cast rendered itself (already sanitized row by row) goes through
   * logStyled.
   */
  override log(message = '', ...args: unknown[]): void {
    const {visible} = sanitizeModule
    super.log(visible(args.length > 0 ? format(message, ...args) : message))
  }

  /**
   * Human lines cut to the terminal's width (COLUMNS, else the TTY's; no cut in a pipe), measured
   * after every control character was made visible, so an escaped title takes the cells it shows.
   */
  protected async logFitted(text: string): Promise<void> {
    const {fitLines, terminalWidth} = await import('../views/style.js')
    super.log(fitLines(sanitizeModule.visible(text), terminalWidth(this.env)))
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
  protected override async catch(err: Interfaces.CommandError): Promise<unknown> {
    const c = classifyError(err, castHome(this.env))
    if (c.kind === 'exit') {
      process.exitCode = c.exit
      return
    }

    if (c.unexpected && !this.jsonEnabled() && c.exit === EXIT.FAILURE && process.env.CAST_DEBUG) return super.catch(err)
    if (this.jsonEnabled()) process.stdout.write(JSON.stringify(errorEnvelope(c.message, c.exit, c.suggestions)) + '\n')
    else process.stderr.write(humanError(c.message, c.suggestions))
    process.exitCode = c.exit
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
