/**
 * A teammate's summary as read back from the team store, checked before any view uses it: the
 * server checks what it can when a row is published (cast_team.publish), but rows are read from
 * a database others write, so a row that does not have the shape summarize() writes is skipped
 * and named (`cast team status`), never rendered and never allowed to empty a view.
 */
import {z} from 'zod'

import {BUCKETS, DECLARED_STATUSES, FILINGS, PROCESS_STATUSES, REASONS, WORK_STATES} from '../../model/types.js'
import type {TeamSummary} from './summary.js'

const time = z.number().finite().nullable()
const text = (max: number) => z.string().max(max)
const block = z.object({at: z.number().finite(), source: z.object({kind: z.string(), ref: z.string()}), text: text(20_000)}).nullable()

const facts = z.object({
  approval: block.optional(),
  backgroundWork: z.number().int().min(0).optional(),
  createdAt: time.optional(),
  cwd: text(4096).nullable().optional(),
  error: block.optional(),
  lastActivityAt: time.optional(),
  lastOutputAt: time.optional(),
  messages: z.number().int().min(0).optional(),
  model: text(200).nullable().optional(),
  parentNativeId: text(200).nullable().optional(),
  process: z
    .object({
      alive: z.boolean(),
      exited: z.enum(['clean', 'crash']).nullable(),
      heartbeatAt: time,
      pid: z.number().int(),
      source: z.object({kind: z.string(), ref: z.string()}),
      status: z.enum(PROCESS_STATUSES).nullable(),
    })
    .nullable()
    .optional(),
  question: block.optional(),
  queued: z.number().int().min(0).optional(),
  settled: z.boolean().optional(),
  title: text(2000).nullable().optional(),
  turnIndex: z.number().int().min(0).optional(),
  turnStartedAt: time.optional(),
})

const decision = z
  .object({
    answer: z.number().int().nullable(),
    answerNote: text(20_000).nullable(),
    answeredAt: time,
    answeredBy: text(200).nullable(),
    askedAt: z.number().finite(),
    askedBy: text(200),
    auto: z.boolean(),
    id: text(200),
    options: z.array(z.object({effect: text(2000), label: text(2000)})).max(50),
    question: text(20_000),
    recommend: z.number().int().nullable(),
    sessionId: text(200),
    why: text(20_000).nullable(),
  })
  .nullable()

export const teamSummarySchema = z.object({
  agent: text(100),
  bucket: z.enum([...BUCKETS, 'folded', 'hidden']),
  child_ids: z.array(text(200)).max(1000).optional(),
  decision,
  device: text(128),
  facts,
  first_seen_at: z.number().finite(),
  id: text(200),
  native_id: text(200),
  parent_id: text(200).nullable(),
  reason: z.enum(REASONS),
  records: z.object({
    declaration: z
      .object({
        at: z.number().finite(),
        messages: z.number().optional(),
        status: z.enum(DECLARED_STATUSES),
        text: text(20_000),
        turnIndex: z.number(),
      })
      .nullable(),
    filing: z.enum(FILINGS).nullable(),
    killed_at: time,
    last_send_at: time,
    owners: z.array(text(200)).max(100),
    pinned: z.boolean(),
    snoozed_until: time,
  }),
  renamed: text(2000).nullable(),
  rule: z.number().int().min(1).max(8),
  runner: text(200).nullable(),
  state: z.enum(WORK_STATES),
  state_since: time,
  v: z.literal(1),
  working_since: time,
})

/** The summary, or why it is not one (the first problem found, one line). */
export function parseSummary(x: unknown): {ok: true; summary: TeamSummary} | {ok: false; why: string} {
  const r = teamSummarySchema.safeParse(x)
  if (r.success) return {ok: true, summary: r.data as unknown as TeamSummary}
  const issue = r.error.issues[0]
  const where = issue?.path.length ? issue.path.join('.') : 'the summary'
  return {ok: false, why: `${where}: ${issue?.message ?? 'malformed'}`.slice(0, 200)}
}
