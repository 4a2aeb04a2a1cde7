/**
 * Whose inbox a session is in (docs/contract.md §3.7, seed 000 `isAssignedAwayFromOwnerSet`). Pure.
 */
import {TIME_LIMITS} from './types.js'

/** Identities compare without case or surrounding space (emails are the usual form). */
export function sameIdentity(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase()
}

export function isOwnedBy(owners: readonly string[], me: string): boolean {
  return owners.some((owner) => sameIdentity(owner, me))
}

/**
 * A session whose owner set is non-empty and excludes me is assigned away: it leaves my inbox,
 * takes its open questions with it and stops notifying me, even if I run it.
 */
export function isAssignedAwayFromOwnerSet(owners: readonly string[], me: string): boolean {
  return owners.length > 0 && !isOwnedBy(owners, me)
}

export interface InboxInput {
  readonly owners: readonly string[]
  /** Who started the session; null counts as me (a session seen on this machine). */
  readonly runner: string | null
  readonly lastActivityAt: number | null
  readonly me: string
  readonly now: number
  /** The recency window for unowned sessions; RECENCY_WINDOW_MS (7 days) when omitted. */
  readonly recencyMs?: number
  /** `--all`: ignore the recency window. */
  readonly all?: boolean
}

/**
 * Is the session in my inbox? Owned by me: always, no recency limit. Assigned away: never.
 * Unowned: only if I run it, and only within the recency window unless `all`. A session with no
 * known activity time is outside the window.
 */
export function inInbox({
  all = false,
  lastActivityAt,
  me,
  now,
  owners,
  recencyMs = TIME_LIMITS.RECENCY_WINDOW_MS,
  runner,
}: InboxInput): boolean {
  if (isOwnedBy(owners, me)) return true
  if (owners.length > 0) return false
  if (runner !== null && !sameIdentity(runner, me)) return false
  if (all) return true
  return lastActivityAt !== null && now - lastActivityAt <= recencyMs
}

/**
 * The first moment inInbox() turns false with time alone (the recency window closing on an
 * unowned session of mine), or null when time alone never changes it.
 */
export function inboxLeavesAt({
  all = false,
  lastActivityAt,
  me,
  owners,
  recencyMs = TIME_LIMITS.RECENCY_WINDOW_MS,
  runner,
}: Omit<InboxInput, 'now'>): number | null {
  if (owners.length > 0 || all || lastActivityAt === null) return null
  if (runner !== null && !sameIdentity(runner, me)) return null
  return lastActivityAt + recencyMs + 1
}

/**
 * Why I may not act on a session another machine runs, or null when I may: I own it or I run it,
 * the rule the machine that runs it checks again before it carries out anything
 * (src/lib/team/executor.ts refusal). The runner is the one the team store binds to the publishing
 * machine's member (docs/team.md); the owners are what that machine published.
 */
export function readOnlyLine(
  s: {readonly owners: readonly string[]; readonly runner: string | null; readonly device: string | null},
  me: string,
): string | null {
  if (isOwnedBy(s.owners, me)) return null
  if (s.runner !== null && sameIdentity(s.runner, me)) return null
  const who = s.owners.length > 0 ? s.owners.join(', ') : (s.runner ?? 'nobody known')
  return `read-only: owned by ${who} on ${s.device ?? 'another machine'}`
}
