/**
 * What a machine tells the team about one session, and how a teammate's machine reads it back
 * as a session row (so the feed, --team and the inbox render it with the local code).
 *
 * Only cast's own view of the session travels: ids, agent, title, cwd, model, state, reason,
 * bucket and the classifier's inputs (counts, times, settled, live), the ask line (the open
 * question / permission / error text), and cast's shared records (owners, state line, kill,
 * filing, the open decision card). Never a transcript line, the last assistant message, queued
 * messages' text or the files' paths.
 */
import type {DecisionCard, SessionRow} from '../store.js'
import type {Agent, Bucket, Declaration, HardBlock, Reason, Rule, SessionFacts, WorkState} from '../../model/types.js'
import {EMPTY_FACTS} from '../../model/types.js'

export interface TeamSummary {
  readonly v: 1
  readonly id: string
  readonly agent: Agent
  readonly native_id: string
  readonly parent_id: string | null
  readonly device: string
  readonly runner: string | null
  readonly state: WorkState
  readonly reason: Reason
  readonly rule: Rule
  readonly bucket: Bucket
  readonly state_since: number | null
  readonly working_since: number | null
  readonly first_seen_at: number
  readonly facts: Partial<SessionFacts>
  readonly records: {
    readonly declaration: Declaration | null
    readonly killed_at: number | null
    readonly filing: string | null
    readonly snoozed_until: number | null
    readonly pinned: boolean
    readonly owners: readonly string[]
    readonly last_send_at: number | null
  }
  readonly renamed: string | null
  readonly decision: DecisionCard | null
  readonly child_ids: readonly string[]
}

const block = (b: HardBlock | null): HardBlock | null => (b ? {at: b.at, source: {kind: 'team', ref: ''}, text: b.text} : null)

export function summarize(row: SessionRow, device: string): TeamSummary {
  const f = row.facts
  return {
    agent: row.agent,
    bucket: row.bucket,
    child_ids: row.childIds,
    decision: row.decision,
    device,
    facts: {
      approval: block(f.approval),
      backgroundWork: f.backgroundWork,
      createdAt: f.createdAt,
      cwd: f.cwd,
      error: block(f.error),
      lastActivityAt: f.lastActivityAt,
      lastOutputAt: f.lastOutputAt,
      messages: f.messages,
      model: f.model,
      parentNativeId: f.parentNativeId,
      process: f.process
        ? {
            alive: f.process.alive,
            exited: f.process.exited,
            heartbeatAt: f.process.heartbeatAt,
            pid: f.process.pid,
            source: {kind: 'team', ref: device},
            status: f.process.status,
          }
        : null,
      question: block(f.question),
      queued: f.queued,
      settled: f.settled,
      title: f.title,
      turnIndex: f.turnIndex,
      turnStartedAt: f.turnStartedAt,
    },
    first_seen_at: row.firstSeenAt,
    id: row.id,
    native_id: row.nativeId,
    parent_id: row.parentId,
    reason: row.reason,
    records: {
      declaration: row.records.declaration,
      filing: row.records.filing,
      killed_at: row.records.killedAt,
      last_send_at: row.records.lastSendAt,
      owners: row.records.owners,
      pinned: row.records.pinned,
      snoozed_until: row.records.snoozedUntil,
    },
    renamed: row.renamed,
    rule: row.rule,
    runner: row.runner,
    state: row.state,
    state_since: row.stateSince,
    v: 1,
    working_since: row.workingSince,
  }
}

/** A teammate's session as a row the local views render (labels are personal: none travel). */
export function rowFromSummary(s: TeamSummary): SessionRow {
  const facts: SessionFacts = {...EMPTY_FACTS, ...s.facts, sources: {}}
  return {
    agent: s.agent,
    bucket: s.bucket,
    childIds: s.child_ids ?? [],
    children: {asking: false, askingSince: null, producing: false},
    decision: s.decision,
    device: s.device,
    facts,
    firstSeenAt: s.first_seen_at,
    id: s.id,
    labels: {},
    nativeId: s.native_id,
    nextCheckAt: null,
    parentId: s.parent_id,
    reason: s.reason,
    records: {
      declaration: s.records.declaration,
      deferredAt: null,
      delivered: false,
      filedAt: null,
      filing: s.records.filing as SessionRow['records']['filing'],
      killedAt: s.records.killed_at,
      lastSendAt: s.records.last_send_at,
      openDecision: s.decision !== null && s.decision.answeredAt === null,
      openDecisionAt: s.decision?.askedAt ?? null,
      owners: [...s.records.owners],
      pinned: s.records.pinned,
      snoozedUntil: s.records.snoozed_until,
      triggers: {oneShot: 0, recurring: 0},
      unread: false,
      verdict: null,
    },
    renamed: s.renamed,
    rule: s.rule,
    runner: s.runner,
    state: s.state,
    stateSince: s.state_since,
    workingSince: s.working_since,
  }
}
