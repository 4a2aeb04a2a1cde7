/**
 * The command line `cast state TEXT [--status S] [--session ID] [--json]` as the fast path reads it
 * (src/lib/state/state-fast.ts), and as the daemon reads a client's over its socket
 * (src/lib/state/state-serve.ts): the same parser on both sides, so the daemon accepts no more than
 * the local path. Null: what the command refuses or reads otherwise (oclif then runs it).
 */
import {DECLARED_STATUSES, type DeclaredStatus} from '../../core/model/types.js'
import {MAX_TEXT_ARG} from '../base/limits.js'

/** A state line is a short block: a sane limit keeps the inbox readable. */
export const MAX_STATE_TEXT = 4000

export interface StateArgs {
  text: string
  status: DeclaredStatus
  session: string | undefined
  json: boolean
}

export function parseStateArgs(argv: readonly string[]): StateArgs | null {
  let text: string | undefined
  let status: string | undefined
  let session: string | undefined
  let json = false
  let positional = true
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (typeof a !== 'string' || a.length > MAX_TEXT_ARG) return null
    if (positional && a === '--') positional = false
    else if (positional && a === '--json') json = true
    else if (positional && (a === '--status' || a === '--session')) {
      const v = argv[++i]
      if (typeof v !== 'string' || v.startsWith('-')) return null
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
