/**
 * oclif's parser errors, said as sentences (src/lib/cli/errors.ts parseFailure turns them into exit 2):
 * - a missing argument: "cast owners needs SESSION: a session id, native id, or a unique prefix …"
 *   (oclif: "Missing 1 required arg: session Session id, …");
 * - a missing required flag: "cast wait needs --until: …" (oclif: "The following error occurred:
 *   Missing required flag until");
 * - an unknown flag: "cast sessions has no flag --jsn." with "Did you mean --json?";
 * - an extra argument: "cast sessions takes no argument grjaguv." and, for a word that looks like
 *   a session id, "To see that session: cast explain grjaguv".
 * Matched by the error's class (oclif's parser error classes, which @oclif/core does not export:
 * by their constructor's name), never by its English.
 */
import {stripAnsi} from '../base/ansi.js'
import {nearest} from '../base/nearest.js'

type FlagDefs = Readonly<Record<string, {char?: string; summary?: string; description?: string; hidden?: boolean; aliases?: string[]}>>

export interface ParseContext {
  readonly commandId: string | undefined
  readonly flags: FlagDefs
}

export interface Sentence {
  readonly message: string
  readonly suggestions: readonly string[]
}

type ArgDef = {name: string; description?: string; options?: readonly string[]}

/** "Session id, native id, …" → "a session id, native id, …" reads on after a colon. */
function lower(text: string): string {
  const t = text.trim().replace(/\.$/, '')
  return /^[A-Z][a-z]/.test(t) ? t[0]!.toLowerCase() + t.slice(1) : t
}

function words(commandId: string | undefined): string {
  const w = (commandId ?? '').replaceAll(':', ' ').trim()
  return w === '' ? 'cast' : `cast ${w}`
}

/** The sentence for an oclif parser error, or null for one cast does not rewrite. */
export function parseSentence(err: unknown, ctx: ParseContext): Sentence | null {
  const cmd = words(ctx.commandId)
  if (!(err instanceof Error)) return null
  const kind = err.constructor.name
  if (kind === 'RequiredArgsError') {
    const args = ((err as unknown as {args?: ArgDef[]}).args ?? []).filter((a) => a.name)
    const or = (xs: readonly string[]): string => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}` : (xs[0] ?? ''))
    // Options are listed ("VERDICT (done, dormant or read)"); a lone argument gets its description.
    const parts = args.map((a) => `${a.name.toUpperCase()}${a.options ? ` (${or(a.options.filter((o) => !o.includes('_')))})` : ''}`)
    const only = args.length === 1 && !args[0]!.options && args[0]!.description ? `: ${lower(args[0]!.description)}` : ''
    return {message: `${cmd} needs ${parts.join(' and ')}${only}.`, suggestions: []}
  }

  if (kind === 'NonExistentFlagsError') {
    const typed = (err as unknown as {flags?: string[]}).flags ?? []
    // Every cast command takes --json (BaseCommand) and --help.
    const known = [...new Set([...Object.keys(ctx.flags).filter((k) => !ctx.flags[k]!.hidden), 'json', 'help'])].map((k) => `--${k}`)
    const near = typed.flatMap((t) => nearest(t.replace(/=.*$/, ''), known)).slice(0, 3)
    const list = typed.map((t) => t.replace(/=.*$/, '')).join(', ')
    return {
      message: `${cmd} has no flag ${list}.`,
      suggestions: near.length > 0 ? [`Did you mean ${near.join(' or ')}?`] : [],
    }
  }

  if (kind === 'UnexpectedArgsError') {
    const extra = (err as unknown as {args?: string[]}).args ?? []
    const message = `${cmd} takes no argument ${extra.map((a) => JSON.stringify(a)).join(', ')}.`
    const id = extra.find((a) => /^[a-z0-9][a-z0-9-]{3,}$/i.test(a))
    const suggestions =
      id && ['sessions', 'status', 'feed', 'inbox'].includes(ctx.commandId ?? '') ? [`To see that session: cast explain ${id}`] : []
    return {message, suggestions}
  }

  if (kind === 'FailedFlagValidationError') {
    // "The following error occurred:\n  Missing required flag until" (reasons one per line).
    const reasons = err.message
      .split('\n')
      .slice(1)
      .map((l) => stripAnsi(l).trim())
      .filter((l) => l !== '' && !/^See more help/.test(l))
    const said = reasons.map((r) => {
      const m = /^Missing required flag:?\s+(?:--)?([\w-]+)$/.exec(r)
      if (!m) return r.replace(/\.$/, '')
      const f = ctx.flags[m[1]!]
      const what = f?.summary ?? f?.description
      return `${cmd} needs --${m[1]}${what ? ` (${lower(what)})` : ''}`
    })
    return {message: `${said.join('; ')}.`, suggestions: []}
  }

  return null
}
