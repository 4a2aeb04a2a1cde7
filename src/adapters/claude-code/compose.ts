/**
 * Combine what the transcript, the process registry and the hooks say about one Claude Code
 * session into its facts.
 *
 * Each source is best at something: the transcript at history (title, counts, open tool calls,
 * error banners), the registry at the present while its process lives (idle, busy, which prompt
 * is open), hooks at the moments in between. Where they disagree about the state of the turn,
 * the newest evidence wins.
 */
import type {CheckedContribution} from '../../core/ingest/adapter.js'
import {EMPTY_FACTS, type FactSource, type HardBlock, type SessionFacts} from '../../core/model/types.js'
import {
  definedOnly,
  type Hooks,
  max,
  mergeTranscripts,
  type Mutable,
  newest,
  pickProcess,
  processFacts,
  type Registry,
  SLACK_MS,
  TITLE_RANKS,
  type Transcript,
} from './compose-sources.js'
import {claudeFacts, factsOf} from './facts.js'

/** One session's sources, sorted by role. */
interface Sources {
  readonly transcripts: CheckedContribution[]
  readonly registries: CheckedContribution[]
  readonly others: CheckedContribution[]
  readonly hookC: CheckedContribution | null
  readonly meta: CheckedContribution | null
}

/** What every step of the composition reads and writes. */
interface Draft {
  readonly nativeId: string
  readonly f: Mutable<SessionFacts>
  readonly sources: Record<string, FactSource>
  readonly src: Sources
  readonly t: Transcript | null
  readonly hooks: Hooks | null
  /** The contribution whose process claim runs the session. */
  readonly claimed: CheckedContribution | null
  readonly dead: boolean
  /** The registry of a live process, with its source. */
  readonly liveReg: Registry | null
  readonly regSource: FactSource | null
  /** The newest transcript line's time; the live registry's status time. */
  readonly tAt: number | null
  readonly statusAt: number | null
  /** The live registry's `waitingFor` while it waits. */
  readonly waiting: string | null
}

function sortSources(contributions: readonly CheckedContribution[]): Sources {
  const transcripts: CheckedContribution[] = []
  const registries: CheckedContribution[] = []
  const others: CheckedContribution[] = []
  let hookC: CheckedContribution | null = null
  let meta: CheckedContribution | null = null
  for (const c of contributions) {
    const r = claudeFacts(c)?.role ?? null
    if (r === 'transcript') transcripts.push(c)
    else if (r === 'registry') registries.push(c)
    else if (r === 'hooks') hookC = c
    else if (r === 'subagent-meta') meta = c
    else others.push(c)
  }

  return {hookC, meta, others, registries, transcripts}
}

function hooksOf(hookC: CheckedContribution | null): Hooks | null {
  const h = factsOf(hookC, 'hooks')
  if (hookC === null || h === null) return null
  return {
    activityAt: h.activityAt ?? null,
    approvalAgent: h.approvalAgent != null,
    event: h.event ?? null,
    exitedAt: h.exitedAt ?? null,
    facts: hookC.facts,
    promptAt: h.promptAt ?? null,
    questionAgent: h.questionAgent != null,
    sessionStartAt: h.sessionStartAt ?? null,
    settledAt: h.settledAt ?? null,
  }
}

function registryOf(claimed: CheckedContribution | null): Registry | null {
  const r = factsOf(claimed, 'registry')
  if (claimed === null || r === null) return null
  return {c: claimed, name: r.name ?? null, status: r.status ?? null, statusAt: r.statusAt ?? null, waitingFor: r.waitingFor ?? null}
}

/** The sources read, the transcript's facts laid down, the process picked. */
function draftOf(nativeId: string, contributions: readonly CheckedContribution[]): Draft {
  const src = sortSources(contributions)
  const t = mergeTranscripts(src.transcripts)
  const hooks = hooksOf(src.hookC)
  const f: Mutable<SessionFacts> = {...EMPTY_FACTS, ...(t === null ? {} : definedOnly(t.facts))}
  const sources: Record<string, FactSource> = {...t?.facts.sources}
  // Contributions from sources this adapter does not know (a screen reader, …): plain overlay.
  for (const c of [...src.others].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))) {
    Object.assign(f, definedOnly(c.facts))
    Object.assign(sources, c.facts.sources)
  }

  // The process.
  const claimed = pickProcess(
    contributions.filter((c) => c.processClaim !== undefined),
    t,
    hooks,
  )
  f.process = claimed === null ? null : processFacts(claimed, hooks)
  if (f.process !== null) sources['process'] = f.process.source
  const live = f.process?.alive === true
  const reg = registryOf(claimed)
  const regSource: FactSource | null = claimed?.processClaim?.source ?? null
  const liveReg = live && reg !== null && regSource !== null ? reg : null
  return {
    claimed,
    dead: f.process !== null && !live,
    f,
    hooks,
    liveReg,
    nativeId,
    regSource,
    sources,
    src,
    statusAt: liveReg?.statusAt ?? null,
    t,
    tAt: max(t?.lastConvAt, t?.lastInputAt),
    waiting: liveReg !== null && liveReg.status === 'waiting' ? liveReg.waitingFor : null,
  }
}

/** Title: custom > ai-title > summary > registry name > subagent description > first prompt. */
function title(d: Draft): void {
  const {t, src} = d
  const titles: {rank: string; text: string; source: FactSource}[] = []
  if (t?.facts.title != null && t.titleRank !== null && t.facts.sources?.['title'] !== undefined) {
    titles.push({rank: t.titleRank, source: t.facts.sources['title'], text: t.facts.title})
  }
  const anyReg = src.registries.find((c) => factsOf(c, 'registry')?.name != null)
  if (anyReg?.processClaim !== undefined)
    titles.push({rank: 'registry', source: anyReg.processClaim.source, text: factsOf(anyReg, 'registry')?.name ?? ''})
  const meta = factsOf(src.meta, 'subagent-meta')
  const description = meta?.description ?? null
  if (meta !== null && description !== null) {
    titles.push({rank: 'meta', source: {kind: 'subagent-meta', ref: meta.path ?? ''}, text: description})
  }
  titles.sort((a, b) => TITLE_RANKS.indexOf(a.rank) - TITLE_RANKS.indexOf(b.rank))
  if (titles[0] !== undefined) {
    d.f.title = titles[0].text
    d.sources['title'] = titles[0].source
  }
}

/** Where and what: cwd, model, creation and activity times, the parent. */
function whereAndWhat(d: Draft): void {
  const {claimed, f, hooks, regSource, sources} = d
  const cf = claimed === null ? null : claudeFacts(claimed)
  const regCwd = cf?.role === 'registry' || cf?.role === 'hooks' ? (cf.cwd ?? null) : null
  if (f.cwd === null && regCwd !== null && regSource !== null) {
    f.cwd = regCwd
    sources['cwd'] = regSource
  }
  const hookCwd = factsOf(d.src.hookC, 'hooks')?.cwd ?? null
  if (f.cwd === null && hookCwd !== null) {
    f.cwd = hookCwd
    sources['cwd'] = {kind: 'hook', ref: hooks?.event ?? 'hook'}
  }
  if (f.model === null && hooks?.facts.model != null) {
    f.model = hooks.facts.model
    sources['model'] = {kind: 'hook', ref: 'SessionStart'}
  }
  if (f.createdAt === null && claimed?.processClaim?.startedAt != null) {
    f.createdAt = claimed.processClaim.startedAt
    if (regSource !== null) sources['createdAt'] = regSource
  }
  if (hooks?.activityAt != null && (f.lastActivityAt === null || hooks.activityAt > f.lastActivityAt)) {
    f.lastActivityAt = hooks.activityAt
    sources['lastActivityAt'] = {kind: 'hook', ref: hooks.event ?? 'hook'}
  }
  if (f.parentNativeId === null) {
    const nativeId = d.nativeId
    f.parentNativeId = d.src.meta?.facts.parentNativeId ?? (nativeId.includes('/') ? nativeId.slice(0, nativeId.indexOf('/')) : null)
  }
  // A subagent marked finished (`finished: true` in its meta.json) handed its result to its parent.
  const meta = factsOf(d.src.meta, 'subagent-meta')
  if (meta?.finished === true) {
    f.deliveredToParent = true
    sources['deliveredToParent'] = {kind: 'subagent-meta', ref: meta.path}
  }
}

/** Did the turn end? The newest of: the transcript's last line, the last hook, the live registry. */
function settle(d: Draft): void {
  const {f, hooks, liveReg, regSource, sources, statusAt, t, tAt} = d
  // A registry still `busy` from a turn the transcript has since ended (its turn_duration is newer
  // than the busy write): 2.1.328 keeps `busy` while a background subagent runs after the parent's
  // turn (`pendingBackgroundAgentCount`). The parent is at its prompt, not producing.
  const busyAfterEnd = liveReg?.status === 'busy' && statusAt !== null && t?.endAt != null && t.endAt >= statusAt
  if (busyAfterEnd && f.process !== null) f.process = {...f.process, status: 'idle'}
  const regSettled = ((): boolean | null => {
    if (liveReg === null) return null
    if (liveReg.status === 'idle' || liveReg.status === 'shell') return true
    if (liveReg.status === 'busy') return busyAfterEnd
    if (liveReg.status === 'waiting') return liveReg.waitingFor === 'input needed'
    return null
  })()
  const settled = newest<boolean>([
    t === null ? null : {at: tAt ?? 0, source: sources['settled'] ?? {kind: 'transcript', ref: ''}, value: f.settled},
    hooks?.facts.settled === undefined || hooks.settledAt === null
      ? null
      : {at: hooks.settledAt, source: hooks.facts.sources?.['settled'] ?? {kind: 'hook', ref: 'hook'}, value: hooks.facts.settled},
    regSettled === null || regSource === null
      ? null
      : // A registry without a status time is the present, as long as its process lives.
        {at: statusAt ?? Number.MAX_SAFE_INTEGER, source: regSource, value: regSettled},
  ])
  if (settled !== null) {
    f.settled = settled.value
    sources['settled'] = settled.source
  }
}

/** A live registry that moved on (idle or busy) after a block opened has closed it. */
function movedOn(d: Draft, at: number): boolean {
  return d.liveReg !== null && d.liveReg.status !== 'waiting' && (d.liveReg.statusAt === null || d.liveReg.statusAt > at)
}

/**
 * A hook's block stands until a user-side line follows it or the process is gone. A subagent's
 * (its hook carried agent_id) is not the parent's turn: the parent's turn_duration, which may be
 * written a few ms after the subagent's PermissionRequest, does not close it.
 */
function hookBlockStands(d: Draft, b: HardBlock | null | undefined, subagent = false): b is HardBlock {
  return b != null && !d.dead && (subagent || d.t?.lastInputAt == null || b.at >= d.t.lastInputAt) && !movedOn(d, b.at)
}

/** Permission prompt: the live registry, else a hook; a background shell at the prompt; a hook's API error. */
function approvalAndError(d: Draft): void {
  const {f, hooks, liveReg, regSource, sources, t, waiting} = d
  const hookApproval = hookBlockStands(d, hooks?.facts.approval, hooks?.approvalAgent) ? (hooks?.facts.approval ?? null) : null
  let approval: HardBlock | null = null
  if (liveReg !== null && regSource !== null && waiting !== null) {
    const w = waiting
    const at = liveReg.statusAt ?? liveReg.c.processClaim?.heartbeatAt ?? f.lastActivityAt ?? 0
    if (w.startsWith('approve ')) approval = {at, source: regSource, text: w.slice('approve '.length).trim() || w}
    else if (w === 'worker request' || w === 'sandbox request') approval = {at, source: regSource, text: w}
    // 2.1.328: `permission prompt`, also for a subagent's dialog. The tool is the hook's, else
    // the open call in the transcript.
    else if (w === 'permission prompt') approval = {at, source: regSource, text: hookApproval?.text ?? t?.openTool ?? 'tool'}
  }
  if (approval === null) approval = hookApproval
  f.approval = approval
  if (approval !== null) sources['approval'] = approval.source
  // A shell still running in the background while the TUI sits at its prompt (`status: "shell"`).
  if (liveReg?.status === 'shell' && f.backgroundWork === 0 && regSource !== null) {
    f.backgroundWork = 1
    sources['backgroundWork'] = regSource
  }
  // An API error the transcript did not show (StopFailure), until the next prompt.
  if (f.error === null && hooks?.facts.error != null && (hooks.promptAt === null || hooks.facts.error.at >= hooks.promptAt)) {
    if (t?.lastConvAt == null || hooks.facts.error.at >= t.lastConvAt - SLACK_MS) {
      f.error = hooks.facts.error
      sources['error'] = hooks.facts.error.source
    }
  }
  // Nothing asked yet (a TUI at its first prompt, no transcript): nothing to settle, the session is new.
  if (t === null && f.messages === 0 && f.approval === null && f.question === null) f.settled = false
}

/**
 * Open question: the transcript's (it has the text), else a hook's, else the registry's dialog.
 * The transcript's AskUserQuestion call with no result stands while the registry says `busy`: a
 * background session blocked on the dialog keeps writing busy (the transcript wins, and the rule-4
 * note says what the registry said). An idle registry after it still closes it.
 */
function question(d: Draft): void {
  const {f, hooks, liveReg, regSource, sources, waiting} = d
  let q: HardBlock | null = f.question
  const fromTranscript = q !== null && q.source.kind === 'transcript'
  if (q !== null && movedOn(d, q.at) && !(fromTranscript && liveReg?.status === 'busy')) q = null
  if (q === null && hookBlockStands(d, hooks?.facts.question, hooks?.questionAgent)) q = hooks.facts.question ?? null
  if (q === null && liveReg !== null && regSource !== null && (waiting === 'dialog open' || waiting === 'input needed')) {
    q = {at: liveReg.statusAt ?? f.lastActivityAt ?? 0, source: regSource, text: waiting}
  }
  f.question = q
  if (q !== null) sources['question'] = q.source
}

/** What a new prompt, an idle process or an exit clears; the hooks' newer reply text. */
function afterwards(d: Draft): void {
  const {dead, f, hooks, liveReg, sources, statusAt, tAt} = d
  // The API error banner stands until a new prompt (or a new reply, which the transcript saw).
  if (f.error !== null) {
    const retried = max(hooks?.promptAt, liveReg?.status === 'busy' ? liveReg.statusAt : null)
    if (retried !== null && retried > f.error.at) f.error = null
  }

  // An idle process has nothing queued; a gone process runs no background work.
  if (liveReg?.status === 'idle' && (statusAt === null || tAt === null || statusAt >= tAt - SLACK_MS)) f.queued = 0
  const exited = dead || (hooks?.exitedAt != null && (tAt === null || hooks.exitedAt >= tAt))
  if (exited && f.backgroundWork > 0) {
    f.backgroundWork = 0
    const source = f.process?.source ?? {kind: 'hook', ref: 'SessionEnd'}
    sources['backgroundWork'] = source
  }

  if (hooks?.facts.lastAssistantText != null && hooks.settledAt !== null && (tAt === null || hooks.settledAt > tAt)) {
    f.lastAssistantText = hooks.facts.lastAssistantText
    sources['lastAssistantText'] = {kind: 'hook', ref: 'Stop'}
  }
}

export function composeClaude(nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const d = draftOf(nativeId, contributions)
  title(d)
  whereAndWhat(d)
  settle(d)
  approvalAndError(d)
  question(d)
  afterwards(d)
  d.f.sources = d.sources
  return d.f
}
