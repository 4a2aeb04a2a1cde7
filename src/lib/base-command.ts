import {Command} from '@oclif/core'
import fs from 'node:fs'

import {diskFull, noSpaceMessage} from '../core/store/disk.js'
import type {Store} from '../core/store/store.js'
import {castHome, clockFrom, type Env, UsageError, whoAmI} from './env.js'
import {EXIT} from './exit-codes.js'

type OclifError = Error & {code?: string; exitCode?: number; oclif?: {exit?: false | number}}

/** Errors a command raises on purpose: a one-line message and an exit code from EXIT. */
export class CastError extends Error {
  override name = 'CastError'
  constructor(
    message: string,
    readonly exit: number,
    readonly suggestions: string[] = [],
  ) {
    super(message)
  }
}

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true
  private storeHandle: Store | undefined

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

    return this.storeHandle
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
  // so this.error(msg, {exit: 3}) would exit 1 under --json. Carry the code across.
  protected override async catch(err: OclifError): Promise<unknown> {
    const fault = storeFault(err, castHome(this.env))
    if (fault) err = fault
    if (err instanceof CastError || err instanceof UsageError) {
      const exit = err instanceof CastError ? err.exit : EXIT.USAGE
      const suggestions = err instanceof CastError ? err.suggestions : []
      if (this.jsonEnabled()) {
        process.stdout.write(JSON.stringify({error: {code: err.name, exit_code: exit, message: err.message, suggestions}}) + '\n')
      } else {
        process.stderr.write(`cast: ${err.message}\n`)
        for (const s of suggestions) process.stderr.write(`  ${s}\n`)
      }

      process.exitCode = exit
      return
    }

    if (err.name === 'SchemaFromFutureError' || err.name === 'StoreOpenError') {
      process.stderr.write(`cast: ${err.message}\n`)
      process.exitCode = EXIT.FAILURE
      return
    }

    if (err.exitCode === undefined && typeof err.oclif?.exit === 'number') err.exitCode = err.oclif.exit
    // oclif's parse errors (bad flag, bad value) are usage errors.
    if (err.exitCode === undefined && /^(Expected|Unexpected argument|Nonexistent flag|Missing|The following error|Parsing)/.test(err.message)) {
      err.exitCode = EXIT.USAGE
    }

    return super.catch(err)
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
