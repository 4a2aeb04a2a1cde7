/**
 * The one verb runner. Every verb of the catalog (src/core/model/verbs.ts), and the few actions no
 * triage bar shows (mark read, choose, answer, own), has one handler here: `(ctx, input) =>
 * Promise<VerbResult>`, its input checked by a zod schema. The commands, `cast inbox`, `cast web`
 * and the team executor call `runVerb` in this process; none spawns cast or reads its output. The
 * identity that acts is `ctx.me`. A refusal is a value (code, exit, line) each front-end renders.
 */
import {z} from 'zod'

import {NUDGE_MESSAGE, type VerbName} from '../../core/model/verbs.js'
import {CastError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'
import {approve, answer, choose, deny} from './answers.js'
import {fleetVerb} from './fleet.js'
import {own, undo} from './history.js'
import {kill} from './kill.js'
import {parseStateMatches, send} from './send.js'
import {defer, label, mark, pin, rename, restore, snooze, stash, wake} from './triage.js'
import {refusal, type VerbContext, type VerbResult} from './types.js'

export type {Refusal, VerbContext, VerbDone, VerbResult} from './types.js'

const sessions = z
  .array(z.string().min(1).max(200))
  .min(1, 'Name at least one SESSION (an id, a native id or a unique prefix of 4+ characters).')
const session = z.string().min(1).max(200)
// Its limit and its characters are the handler's to check (src/lib/agents/message-text.ts), with its own line.
const text = z.string()
const MARK_AS = z.enum(['done', 'dormant', 'needs_input', 'unread', 'read'])

/** Each verb: its input's schema and its handler. */
const VERB_TABLE = {
  answer: {input: z.object({card: z.string().min(1), choice: z.string().min(1).max(200), note: text.nullish()}), run: answer},
  approve: {input: z.object({always: z.boolean().optional(), session}), run: approve},
  choose: {
    input: z.object({
      answers: z
        .array(z.array(z.number().int().min(1).max(99)).min(1).max(20))
        .min(1)
        .max(8),
      session,
    }),
    run: choose,
  },
  defer: {input: z.object({sessions}), run: defer},
  deny: {input: z.object({note: text.nullish(), session}), run: deny},
  done: {input: z.object({sessions}), run: (c: VerbContext, i: {sessions: string[]}) => mark(c, {...i, as: 'done'})},
  dormant: {input: z.object({sessions}), run: (c: VerbContext, i: {sessions: string[]}) => mark(c, {...i, as: 'dormant'})},
  kill: {input: z.object({dryRun: z.boolean().optional(), graceMs: z.number().int().min(0).optional(), sessions}), run: kill},
  label: {input: z.object({label: z.string().max(200).nullable(), sessions}), run: label},
  mark: {input: z.object({as: MARK_AS, sessions}), run: mark},
  'needs-input': {input: z.object({sessions}), run: (c: VerbContext, i: {sessions: string[]}) => mark(c, {...i, as: 'needs_input'})},
  // cast send --if needs_input:stalled with the short continue message: refused (exit 5) once the session moved on.
  nudge: {
    input: z.object({session}),
    run: (c: VerbContext, i: {session: string}) =>
      send(c, {
        ifMatch: [{reason: 'stalled', state: 'needs_input'}],
        ifText: ['needs_input:stalled'],
        message: NUDGE_MESSAGE,
        session: i.session,
      }),
  },
  own: {input: z.object({session, who: z.string().max(200).nullish()}), run: own},
  pin: {input: z.object({sessions}), run: (c: VerbContext, i: {sessions: string[]}) => pin(c, {...i, pinned: true})},
  rename: {input: z.object({session, title: z.string().max(10_000).nullable()}), run: rename},
  reply: {
    input: z.object({
      ifMatch: z
        .array(z.object({reason: z.string().nullable(), state: z.enum(['working', 'needs_input', 'done', 'idle', 'dormant'])}))
        .optional(),
      ifText: z.array(z.string()).optional(),
      message: text,
      queue: z.boolean().optional(),
      session,
    }),
    run: send,
  },
  restore: {input: z.object({sessions}), run: restore},
  snooze: {
    input: z.union([
      z.object({forMs: z.number().int().min(1), sessions}),
      z.object({sessions, until: z.number()}),
      z.object({sessions, when: z.string().min(1).max(200)}),
    ]),
    run: snooze,
  },
  stash: {
    input: z.object({hide: z.boolean().optional(), note: text.nullish(), sessions, untilReady: z.string().nullish()}),
    run: (c: VerbContext, i: {sessions: string[]; hide?: boolean; note?: string | null; untilReady?: string | null}) =>
      stash(c, {...i, hide: i.hide === true}),
  },
  'stash-hide': {input: z.object({sessions}), run: (c: VerbContext, i: {sessions: string[]}) => stash(c, {...i, hide: true})},
  undo: {input: z.object({}), run: (c: VerbContext) => undo(c)},
  unpin: {input: z.object({sessions}), run: (c: VerbContext, i: {sessions: string[]}) => pin(c, {...i, pinned: false})},
  unread: {input: z.object({sessions}), run: (c: VerbContext, i: {sessions: string[]}) => mark(c, {...i, as: 'unread'})},
  wake: {input: z.object({sessions}), run: wake},
} satisfies Record<
  VerbName | 'answer' | 'choose' | 'mark' | 'own',
  {input: z.ZodType; run: (ctx: VerbContext, input: never) => Promise<VerbResult>}
>

type Table = typeof VERB_TABLE
export type RunnerVerb = keyof Table
export type VerbInputOf<N extends RunnerVerb> = z.input<Table[N]['input']>

export function isRunnerVerb(name: string): name is RunnerVerb {
  return Object.hasOwn(VERB_TABLE, name)
}

/**
 * Run one verb. Its input is checked first (a bad one is a usage refusal, exit 2); whatever the
 * handler's rules refuse (they throw CastError deep down: resolve, deliver, the dialog checks)
 * comes back as a Refusal. Only an unexpected error is thrown.
 */
export async function runVerb<N extends RunnerVerb>(ctx: VerbContext, name: N, input: VerbInputOf<N>): Promise<VerbResult> {
  return runVerbData(ctx, name, input)
}

/** runVerb for input that came as data (a page's body, a teammate's action): the schema is the only check. */
export async function runVerbData(ctx: VerbContext, name: RunnerVerb, input: unknown): Promise<VerbResult> {
  const entry: {input: z.ZodType; run: (ctx: VerbContext, input: unknown) => Promise<VerbResult>} = VERB_TABLE[name] as never
  const parsed = entry.input.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return refusal(`${name}: ${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message ?? 'bad input'}`, EXIT.USAGE)
  }

  try {
    const onHost = await fleetVerb(ctx, name, parsed.data)
    if (onHost) return onHost
    return await entry.run(ctx, parsed.data)
  } catch (error) {
    if (error instanceof CastError) return refusal(error.message, error.exit, error.suggestions)
    throw error
  }
}

/**
 * A catalog verb as the triage bar, the keys and the palette ask for it: the session, the value
 * the verb takes (a time, a label, a text), and for a reply the state the person saw (STATE or
 * STATE:REASON: refused, exit 5, when it changed) or a hold until the turn ends.
 */
export function catalogCall(
  name: VerbName,
  o: {session: string; value?: string; expect?: string; queue?: boolean},
): {name: RunnerVerb; input: Record<string, unknown>} {
  const s = [o.session]
  switch (name) {
    case 'reply': {
      const ifMatch =
        o.expect && !o.queue
          ? parseStateMatches(o.expect, (m) => {
              throw new CastError(m, EXIT.USAGE)
            })
          : undefined
      return {
        input: {ifMatch, ifText: o.expect && !o.queue ? [o.expect] : undefined, message: o.value ?? '', queue: o.queue, session: o.session},
        name,
      }
    }

    case 'label':
      return {input: {label: o.value ?? '', sessions: s}, name}
    case 'approve':
    case 'deny':
    case 'nudge':
      return {input: {session: o.session}, name}
    case 'rename':
      return {input: {session: o.session, title: o.value ?? ''}, name}
    case 'snooze':
      return {input: {sessions: s, when: o.value ?? ''}, name}
    case 'undo':
      return {input: {}, name}
    default:
      return {input: {sessions: s}, name}
  }
}
