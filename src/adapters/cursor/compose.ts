/**
 * Combine what one Cursor chat's store.db, meta.json and hooks say.
 *
 * - Title: meta.json's title, else the store's name (unless it is a placeholder such as
 *   "New Agent"), else the first prompt. Model: the store's `lastUsedModel`, else a hook's.
 * - cwd: meta.json, else the store's workspace, else a hook's workspace root.
 * - Last activity: meta.json's `updatedAtMs`, the hooks, else when the chat was created.
 * - The turn: the store's last message is weak evidence with no time of its own (meta.json's
 *   updatedAtMs when there is one). A hook newer than that (with a few seconds of slack, since
 *   the sidecar is written after the hook fires) wins.
 */
import type {CheckedContribution} from '../../core/ingest/adapter.js'
import {EMPTY_FACTS, type FactSource, type SessionFacts} from '../../core/model/types.js'
import {cursorFacts, factsOf} from './facts.js'
import {later} from './text.js'

type Mutable<T> = {-readonly [K in keyof T]: T[K]}

const SLACK_MS = 5000

function definedOnly(facts: Partial<SessionFacts>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(facts)) if (value !== undefined && key !== 'sources') out[key] = value
  return out
}

/**
 * The hooks: the turn, an error, activity and the prompt's time when newer than the store's
 * evidence (`storeAt`, with SLACK_MS), the reply text, cwd and model where the files have none.
 */
function fromHooks(
  f: Mutable<SessionFacts>,
  sources: Record<string, FactSource>,
  hooks: CheckedContribution,
  hasStore: boolean,
  storeAt: number | null,
): void {
  const h = hooks.facts
  const x = factsOf(hooks, 'hooks')
  const settledAt = x?.settledAt ?? null
  const promptAt = x?.promptAt ?? null
  const activityAt = x?.activityAt ?? null
  const event = x?.event ?? 'hook'

  if (h.settled !== undefined && settledAt !== null && (!hasStore || storeAt === null || settledAt + SLACK_MS >= storeAt)) {
    f.settled = h.settled
    if (h.sources?.['settled'] !== undefined) sources['settled'] = h.sources['settled']
  }

  if (h.error != null && (storeAt === null || h.error.at + SLACK_MS >= storeAt) && (promptAt === null || promptAt <= h.error.at)) {
    f.error = h.error
    sources['error'] = h.error.source
  }

  if (activityAt !== null && (f.lastActivityAt === null || activityAt > f.lastActivityAt)) {
    f.lastActivityAt = activityAt
    sources['lastActivityAt'] = {kind: 'hook', ref: event}
  }

  if (promptAt !== null && (f.turnStartedAt === null || promptAt > f.turnStartedAt)) {
    f.turnStartedAt = promptAt
    sources['turnStartedAt'] = {kind: 'hook', ref: 'beforeSubmitPrompt'}
  }

  const textAt = x?.textAt ?? null
  if (h.lastAssistantText != null && textAt !== null && (storeAt === null || textAt + SLACK_MS >= storeAt)) {
    f.lastAssistantText = h.lastAssistantText
    sources['lastAssistantText'] = {kind: 'hook', ref: 'afterAgentResponse'}
  }

  const cwd = x?.cwd ?? null
  if (f.cwd === null && cwd !== null) {
    f.cwd = cwd
    sources['cwd'] = {kind: 'hook', ref: event}
  }

  const model = x?.model ?? null
  if (f.model === null && model !== null) {
    f.model = model
    sources['model'] = {kind: 'hook', ref: event}
  }

  if (x?.exitedAt != null) sources['exited'] = {kind: 'hook', ref: 'sessionEnd'}
}

export function composeCursor(_nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  let store: CheckedContribution | null = null
  let meta: CheckedContribution | null = null
  let hooks: CheckedContribution | null = null
  const others: CheckedContribution[] = []
  for (const c of contributions) {
    const r = cursorFacts(c)?.role ?? null
    if (r === 'store') store = c
    else if (r === 'meta') meta = c
    else if (r === 'hooks') hooks = c
    else others.push(c)
  }

  const f: Mutable<SessionFacts> = {...EMPTY_FACTS}
  const sources: Record<string, FactSource> = {}
  if (store !== null) {
    Object.assign(f, definedOnly(store.facts))
    Object.assign(sources, store.facts.sources)
  }

  if (meta !== null) {
    const facts = definedOnly(meta.facts)
    Object.assign(f, facts)
    Object.assign(sources, meta.facts.sources)
  }

  for (const c of others.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))) {
    Object.assign(f, definedOnly(c.facts))
    Object.assign(sources, c.facts.sources)
  }

  f.parseErrors = contributions.reduce((n, c) => n + (c.facts.parseErrors ?? 0), 0)

  // Title.
  const m = factsOf(meta, 'meta')
  const st = factsOf(store, 'store')
  const metaTitle = m?.title ?? null
  const storeName = st?.name ?? null
  const metaSource: FactSource = {kind: 'meta', ref: m?.ref ?? ''}
  const storeSource: FactSource = {kind: 'sqlite', ref: st?.ref ?? ''}
  if (metaTitle !== null) {
    f.title = metaTitle
    sources['title'] = metaSource
  } else if (storeName !== null) {
    f.title = storeName
    sources['title'] = storeSource
  } else if (f.title !== null) {
    sources['title'] = storeSource
  }

  // Last activity: the sidecar's update time, else the store's creation time.
  const updatedAt = m?.updatedAt ?? null
  if (updatedAt !== null) {
    f.lastActivityAt = later(f.lastActivityAt, updatedAt)
    sources['lastActivityAt'] = metaSource
  } else if (f.lastActivityAt !== null && store !== null) {
    sources['lastActivityAt'] = storeSource
  }

  const storeAt = updatedAt ?? f.createdAt
  if (hooks !== null) fromHooks(f, sources, hooks, store !== null, storeAt)

  if (m?.isSubagent === true) sources['subagent'] = metaSource
  f.sources = sources
  return f
}
