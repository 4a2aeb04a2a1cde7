import {EMPTY_FACTS, EMPTY_RECORDS} from '../../../src/core/model/types.js'
import type {
  ChildSummary,
  Declaration,
  DeclaredStatus,
  HardBlock,
  ProcessFacts,
  SessionFacts,
  SessionRecords,
} from '../../../src/core/model/types.js'

/** 2026-11-29T21:31:00.000Z */
export const NOW = Date.UTC(2026, 10, 29, 21, 31)
export const SEC = 1000
export const MIN = 60 * SEC
export const HOUR = 60 * MIN

/** A session mid-conversation: 10 messages, turn 3, last activity 5 minutes ago, turn not settled. */
export function facts(overrides: Partial<SessionFacts> = {}): SessionFacts {
  return {...EMPTY_FACTS, createdAt: NOW - 3 * HOUR, lastActivityAt: NOW - 5 * MIN, messages: 10, turnIndex: 3, ...overrides}
}

export function records(overrides: Partial<SessionRecords> = {}): SessionRecords {
  return {...EMPTY_RECORDS, ...overrides}
}

export function children(overrides: Partial<ChildSummary> = {}): ChildSummary {
  return {asking: false, producing: false, ...overrides}
}

export function proc(overrides: Partial<ProcessFacts> = {}): ProcessFacts {
  return {
    alive: true,
    exited: null,
    heartbeatAt: NOW - MIN,
    pid: 4242,
    source: {kind: 'registry', ref: 'sessions/4242.json'},
    status: null,
    ...overrides,
  }
}

export function block(text: string, at = NOW - 5 * MIN): HardBlock {
  return {at, source: {kind: 'transcript', offset: 0, ref: 'session.jsonl'}, text}
}

/** A declaration made in turn 3 (the current turn of `facts()`), 10 minutes ago. */
export function declared(status: DeclaredStatus, overrides: Partial<Declaration> = {}): Declaration {
  return {at: NOW - 10 * MIN, status, text: `declared ${status}`, turnIndex: 3, ...overrides}
}
