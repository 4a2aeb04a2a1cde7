/**
 * The JSON contract as zod schemas: every shape a script reads from `--json` and `-w --json`
 * (docs/contract.md §6.1). The TypeScript types of src/core/model/wire.ts are held to these
 * (test/schema/types.test.ts fails to compile when one drifts), scripts/schema.ts writes their
 * JSON Schemas into docs/schema/, and test/schema/real-output.test.ts validates real output of
 * the CLI against those files. Every object is strict: a field renamed or added without a schema
 * change is rejected. Pure: no I/O.
 */
import {z} from 'zod'

import {PHASES} from './holds.js'
import {BUCKETS, DECLARED_STATUSES, FILINGS, LOG_REASONS, REASONS, TRANSITION_EVENTS, VERDICTS, WORK_STATES} from './types.js'
import {SCHEMA_VERSION} from './wire.js'

const iso = z.string().describe('ISO 8601 time (UTC)')
const schema = z.literal(SCHEMA_VERSION).describe('The version of the JSON contract (src/core/model/wire.ts SCHEMA_VERSION)')
const workState = z.enum(WORK_STATES)
const bucket = z.enum([...BUCKETS, 'folded', 'hidden'])
const reason = z.enum(REASONS)
const logReason = z.enum(LOG_REASONS)
const rule = z.literal([1, 2, 3, 4, 5, 6, 7, 8])
const phase = z.enum(PHASES)

export const CountsSchema = z.strictObject({
  needs_input: z.number(),
  done: z.number(),
  working: z.number(),
  dormant: z.number(),
  idle: z.number(),
  questions: z.number(),
  new: z.number(),
  pinned: z.number(),
  live: z.number(),
  stashed: z.number(),
  dismissed: z.number(),
  killed: z.number(),
  folded: z.number(),
  snoozed: z.number(),
  quiet: z.number(),
})

export const AskSchema = z.strictObject({
  kind: z.enum(['approval', 'question', 'error', 'decision']),
  text: z.string(),
  tool: z.string().nullable(),
})

export const DecisionSchema = z.strictObject({
  id: z.string(),
  session_id: z.string(),
  question: z.string(),
  options: z.array(z.strictObject({n: z.number(), label: z.string(), effect: z.string()})),
  recommend: z.number().nullable(),
  why: z.string().nullable(),
  asked_at: iso,
  asked_by: z.string(),
  answer: z.number().nullable(),
  answer_label: z.string().nullable(),
  answer_note: z.string().nullable(),
  answered_at: iso.nullable(),
  answered_by: z.string().nullable(),
  auto: z.boolean(),
})

const usage = z.strictObject({input: z.number(), output: z.number(), cache_read: z.number(), cache_write: z.number(), total: z.number()})

export const SessionSchema = z.strictObject({
  id: z.string(),
  short_id: z.string(),
  agent: z.string(),
  native_id: z.string(),
  title: z.string().nullable(),
  cwd: z.string().nullable(),
  model: z.string().nullable(),
  state: workState,
  reason,
  rule,
  bucket,
  messages: z.number(),
  created_at: iso.nullable(),
  last_activity_at: iso.nullable(),
  waiting_since: iso.nullable(),
  live: z.boolean(),
  pid: z.number().nullable(),
  background_work: z.number(),
  quiet: z.boolean(),
  state_line: z.strictObject({text: z.string(), status: z.enum(DECLARED_STATUSES), at: iso, messages_since: z.number()}).nullable(),
  owners: z.array(z.string()),
  runner: z.string().nullable(),
  device: z.string().nullable(),
  labels: z.array(z.string()),
  pinned: z.boolean(),
  filing: z.string().nullable(),
  snoozed_until: iso.nullable(),
  parent_id: z.string().nullable(),
  children: z.array(z.string()),
  decision: DecisionSchema.nullable(),
  ask: AskSchema.nullable(),
  pane: z.string().nullable(),
  usage: usage.nullable(),
  changed_files: z.number(),
  park: z.strictObject({until: z.string(), until_short_id: z.string(), note: z.string().nullable(), since: iso}).nullable(),
})

export const ListingSchema = z.strictObject({
  schema,
  me: z.string(),
  generated_at: iso,
  counts: CountsSchema,
  older_hidden: z.number(),
  partial: z.literal(true).optional(),
  unread_files: z.number().nullable().optional(),
  sessions: z.array(SessionSchema),
  stale: z.literal(true).optional(),
})

export const WatchLineSchema = z.strictObject({
  schema,
  event: z.enum([...TRANSITION_EVENTS, 'enter', 'leave', 'snapshot']),
  seq: z.number(),
  ts: iso,
  id: z.string().nullable(),
  session_id: z.string().nullable(),
  short_id: z.string().nullable(),
  agent: z.string().nullable(),
  title: z.string().nullable(),
  cwd: z.string().nullable(),
  from: workState.nullable(),
  to: workState.nullable(),
  reason: logReason.nullable(),
  bucket: bucket.nullable(),
  is_pinned: z.boolean(),
  is_live: z.boolean(),
  label: z.string().nullable(),
  labels: z.array(z.string()),
  owners: z.array(z.string()),
  ask: AskSchema.nullable(),
  pane: z.string().nullable(),
})

/** A line of a transition of the log: what the library's `watch` yields. */
export const TransitionLineSchema = WatchLineSchema.extend({
  event: z.enum(TRANSITION_EVENTS),
  id: z.string(),
  to: workState,
  reason: logReason,
  bucket,
})

const factSource = z.strictObject({kind: z.string(), ref: z.string(), offset: z.number().optional()})

const records = z.strictObject({
  declaration: z
    .strictObject({
      status: z.enum(DECLARED_STATUSES),
      text: z.string(),
      at: z.number(),
      turnIndex: z.number(),
      messages: z.number().optional(),
    })
    .nullable(),
  verdict: z.strictObject({verdict: z.enum(VERDICTS), at: z.number()}).nullable(),
  filing: z.enum(FILINGS).nullable(),
  filedAt: z.number().nullable(),
  snoozedUntil: z.number().nullable(),
  killedAt: z.number().nullable(),
  lastSendAt: z.number().nullable(),
  pinned: z.boolean(),
  deferredAt: z.number().nullable(),
  owners: z.array(z.string()),
  triggers: z.strictObject({recurring: z.number(), oneShot: z.number()}),
  openDecision: z.boolean(),
  openDecisionAt: z.number().nullable().optional(),
  delivered: z.boolean(),
  unread: z.boolean(),
})

export const ExplainSchema = z.strictObject({
  schema,
  bucket,
  rest: z
    .strictObject({
      decided_by: z.enum(['declaration', 'classifier', 'structure', 'fallback']),
      note: z.string(),
      classifier: z
        .strictObject({
          configured: z.boolean(),
          verdict: z.string().nullable(),
          why: z.string().nullable(),
          error: z.string().nullable(),
          at: iso.nullable(),
          ms: z.number().nullable(),
        })
        .nullable(),
      nudged: z.boolean(),
    })
    .nullable(),
  chain: z.array(z.strictObject({matched: z.boolean(), note: z.string(), rule})),
  facts: z.array(z.strictObject({fact: z.string(), value: z.unknown(), source: factSource.nullable()})),
  files: z.array(z.strictObject({kind: z.string(), offset: z.number(), parse_errors: z.number(), path: z.string(), size: z.number()})),
  next_check_at: iso.nullable(),
  reason,
  records,
  rule,
  session: SessionSchema,
  state: workState,
  holds: z.strictObject({
    phase,
    usage: usage.nullable(),
    own_usage: usage.nullable(),
    unknown_usage_lines: z.number(),
    sessions_without_usage: z.number(),
    partial: z.boolean(),
    models: z.array(z.string()),
    changed_files: z.array(z.strictObject({path: z.string(), writes: z.number()})),
    changed_files_more: z.number(),
    running_tools: z.array(z.strictObject({name: z.string(), since: iso.nullable()})),
    background: z.array(z.string()),
    subagents: z.array(z.strictObject({id: z.string(), short_id: z.string(), title: z.string().nullable(), state: workState, phase})),
  }),
  park: z
    .strictObject({until: z.string(), note: z.string().nullable(), made_at: iso, ended_at: iso.nullable(), ended: z.string().nullable()})
    .nullable(),
  stale: z.literal(true).optional(),
})

export const VerbOutcomeSchema = z.strictObject({
  schema,
  action: z.number().nullable(),
  sessions: z.array(SessionSchema),
  verb: z.string(),
})

export const RefusalSchema = z.strictObject({
  schema,
  error: z.strictObject({
    code: z.enum(['usage', 'not_found', 'ambiguous', 'refused', 'timeout', 'failure']),
    exit_code: z.number(),
    message: z.string(),
    suggestions: z.array(z.string()),
  }),
})

/**
 * The shapes docs/schema/ holds, by file name: `cast sessions --json` (listing), a session object,
 * a decision card, `cast explain --json`, a line of `cast sessions -w --json` (watch-line) and
 * one of a transition (transition-line), a triage verb's answer and the error envelope.
 */
export const WIRE_SCHEMAS = {
  decision: DecisionSchema,
  explain: ExplainSchema,
  listing: ListingSchema,
  refusal: RefusalSchema,
  session: SessionSchema,
  'transition-line': TransitionLineSchema,
  'verb-outcome': VerbOutcomeSchema,
  'watch-line': WatchLineSchema,
} as const

export type WireShape = keyof typeof WIRE_SCHEMAS

/**
 * The JSON Schema (draft-07, the draft every common validator reads) of each shape, as
 * docs/schema/NAME.json holds it: what scripts/schema.ts writes and the test compares.
 */
export function wireJsonSchemas(): Record<WireShape, Record<string, unknown>> {
  const out = {} as Record<WireShape, Record<string, unknown>>
  for (const name of Object.keys(WIRE_SCHEMAS) as WireShape[]) {
    const body = z.toJSONSchema(WIRE_SCHEMAS[name], {target: 'draft-7'})
    const {$schema, ...rest} = body
    out[name] = {$schema, title: `cast ${name} (schema ${SCHEMA_VERSION})`, ...rest}
  }

  return out
}

/** A file of docs/schema/ as the generator writes it. */
export function schemaFileText(schema: Record<string, unknown>): string {
  return JSON.stringify(schema, null, 2) + '\n'
}
