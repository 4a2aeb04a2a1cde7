/**
 * The verb runner's types: who acts and on which store (the context), what a verb answers (a
 * result with its JSON and human lines, or a refusal with a code, an exit code from the table and
 * one line). Every front-end (the commands, `cast inbox`, `cast web`, the team executor) renders
 * these; none of them parses another's output.
 */
import type {Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import {errorKind, type ErrorKind} from '../cli/errors.js'
import {EXIT} from '../base/exit-codes.js'
import type {Env} from '../home/env.js'

export interface VerbContext {
  readonly store: Store
  readonly env: Env
  /** Who acts: the identity the undo history, the delivery and the ownership checks name. */
  readonly me: string
  readonly clock: () => number
  /**
   * Whether a session of another machine of the team is handed to its machine (the team branch);
   * false on the machine that carries a teammate's action out (it acts locally only).
   */
  readonly team: boolean
  /** The team branch's wait: --no-wait, --timeout (seconds). */
  readonly wait?: {readonly 'no-wait'?: boolean; readonly timeout?: number}
  /**
   * Whether a session of another machine of `cast hosts` (`HOST:ID`) runs there, over the person's
   * ssh (./fleet.ts): set by the front-ends of the person at this machine, never by the team
   * executor (a teammate's action does not drive this person's ssh) nor on the host that runs it.
   */
  readonly fleet?: boolean
  /** Sync the store before acting (false: the caller keeps it current, as `cast web` does). */
  readonly sync?: boolean
}

/** A verb that ran. `exit` is not 0 when part of it was refused (a kill of two, one refused). */
export interface VerbDone<J = unknown> {
  readonly ok: true
  readonly json: J
  /** What a person reads, one line each (already sanitized). */
  readonly lines: readonly string[]
  /** Lines for stderr (a part refused, a warning). */
  readonly warnings: readonly string[]
  readonly exit: number
}

/** A verb that did nothing: why, in one line, and the exit code scripts read. */
export interface Refusal {
  readonly ok: false
  readonly code: ErrorKind
  readonly exit: number
  readonly line: string
  readonly hints: readonly string[]
  /** What the team branch answered for a refused remote action (else absent). */
  readonly json?: unknown
}

export type VerbResult<J = unknown> = VerbDone<J> | Refusal

export function done<J>(json: J, lines: readonly string[] = [], extra: {warnings?: readonly string[]; exit?: number} = {}): VerbDone<J> {
  return {exit: extra.exit ?? EXIT.OK, json, lines, ok: true, warnings: extra.warnings ?? []}
}

export function refusal(line: string, exit: number, hints: readonly string[] = [], json?: unknown): Refusal {
  return {code: errorKind(exit), exit, hints, line, ok: false, ...(json === undefined ? {} : {json})}
}

/** A handler refuses by throwing (deep code does: resolve, deliver, dialog): the runner turns it into a Refusal. */
export function refuse(line: string, exit: number, hints: readonly string[] = []): never {
  throw new CastError(line, exit, [...hints])
}
