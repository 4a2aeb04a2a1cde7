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
import {EMPTY_FACTS, type FactSource, type HardBlock, type ProcessFacts, type SessionFacts} from '../../core/model/types.js'
import {isObject, num, str} from './text.js'

type Mutable<T> = {-readonly [K in keyof T]: T[K]}

/** Clock skew allowed between a registry write and a transcript line (same machine, so small). */
const SLACK_MS = 1000

const TITLE_RANKS: readonly string[] = ['custom', 'ai', 'summary', 'registry', 'meta', 'prompt']

interface Transcript {
  readonly facts: Partial<SessionFacts>
  readonly lastConvAt: number | null
  readonly lastInputAt: number | null
  readonly titleRank: string | null
  /** The last line is a `turn_duration` written at this time (else null). */
  readonly endAt: number | null
  /** Background subagents launched and not reported finished; the last turn_duration's count. */
  readonly backgroundAgents: number
  readonly pendingAgents: number
  /** The newest open tool call that is not a question. */
  readonly openTool: string | null
}

interface Registry {
  readonly c: CheckedContribution
  readonly status: string | null
  readonly waitingFor: string | null
  readonly statusAt: number | null
  readonly name: string | null
}

interface Hooks {
  readonly facts: Partial<SessionFacts>
  readonly activityAt: number | null
  readonly event: string | null
  readonly promptAt: number | null
  readonly sessionStartAt: number | null
  readonly settledAt: number | null
  readonly exitedAt: number | null
  /** The open approval / question is a subagent's (its hook carried `agent_id`). */
  readonly approvalAgent: boolean
  readonly questionAgent: boolean
}

function role(c: CheckedContribution): string | null {
  return isObject(c.extra) ? str(c.extra['role']) : null
}

function extraNum(c: CheckedContribution, key: string): number | null {
  return isObject(c.extra) ? num(c.extra[key]) : null
}

function extraStr(c: CheckedContribution, key: string): string | null {
  return isObject(c.extra) ? str(c.extra[key]) : null
}

function max(...values: (number | null | undefined)[]): number | null {
  let out: number | null = null
  for (const v of values) if (typeof v === 'number' && (out === null || v > out)) out = v
  return out
}

/** Several transcript files for one session are rare (a resume copied into a new file): the latest wins. */
function mergeTranscripts(list: readonly CheckedContribution[]): Transcript | null {
  if (list.length === 0) return null
  const sorted = [...list].sort((a, b) => (a.facts.lastActivityAt ?? 0) - (b.facts.lastActivityAt ?? 0))
  let facts: Partial<SessionFacts> = {}
  let sources: Record<string, FactSource> = {}
  let parseErrors = 0
  for (const c of sorted) {
    facts = {...facts, ...definedOnly(c.facts)}
    sources = {...sources, ...c.facts.sources}
    parseErrors += c.facts.parseErrors ?? 0
  }
  const newest = sorted[sorted.length - 1] as CheckedContribution
  const openTool = isObject(newest.extra) && isObject(newest.extra['openTool']) ? str(newest.extra['openTool']['name']) : null
  return {
    backgroundAgents: extraNum(newest, 'backgroundAgents') ?? 0,
    endAt: extraNum(newest, 'endAt'),
    facts: {...facts, parseErrors, sources},
    openTool,
    pendingAgents: extraNum(newest, 'pendingAgents') ?? 0,
    lastConvAt: extraNum(newest, 'lastConvAt'),
    lastInputAt: extraNum(newest, 'lastInputAt'),
    titleRank: extraStr(newest, 'titleRank'),
  }
}

function definedOnly(facts: Partial<SessionFacts>): Partial<SessionFacts> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(facts)) if (value !== undefined && key !== 'sources') out[key] = value
  return out as Partial<SessionFacts>
}

/**
 * The process that runs (or ran) the session.
 *
 * A live claim wins (the newest one, if a session was resumed in two terminals). Otherwise the
 * newest dead claim: Claude Code deletes its registry file on a clean exit, so a file whose pid
 * is dead is a crash, and the session is reported with `alive: false` (the classifier says
 * `dead`) — also when the transcript's last line is newer than the file, since a running Claude
 * Code rewrites the file only when its status changes and a crash mid-turn leaves exactly that.
 * A dead claim stands while the transcript's turn is open. Otherwise it is ignored only when
 * there is evidence of a later run it knows nothing about:
 * a prompt submitted after its last status write (the dead process would have written `busy`
 * then), or a SessionStart hook after it. That later run exited cleanly (its own file is gone),
 * so the transcript and hooks speak for the session.
 */
function pickProcess(claims: readonly CheckedContribution[], t: Transcript | null, hooks: Hooks | null): CheckedContribution | null {
  const started = (c: CheckedContribution): number => c.processClaim?.startedAt ?? 0
  const alive = claims.filter((c) => c.processAlive === true).sort((a, b) => started(b) - started(a))
  if (alive[0] !== undefined) return alive[0]
  const dead = [...claims].sort((a, b) => started(b) - started(a))[0]
  if (dead?.processClaim === undefined) return null
  const heartbeat = dead.processClaim.heartbeatAt
  const lastWrite = heartbeat ?? dead.processClaim.startedAt
  const prompt = max(t?.facts.turnStartedAt, hooks?.promptAt)
  // A turn still open with no live registry: nothing runs it (a later run that took it over
  // would have a live registry of its own; one that exited cleanly would have ended the turn).
  // The dead process is the answer even when it died before writing `busy` for this prompt.
  if (t?.facts.settled === false && hooks?.exitedAt == null) return dead
  if (heartbeat !== null && prompt !== null && prompt > heartbeat + SLACK_MS) return null
  if (lastWrite !== null && hooks?.sessionStartAt != null && hooks.sessionStartAt > lastWrite + SLACK_MS) return null
  return dead
}

function processFacts(c: CheckedContribution, hooks: Hooks | null): ProcessFacts | null {
  const claim = c.processClaim
  if (claim === undefined) return null
  const alive = c.processAlive === true
  const lastWrite = claim.heartbeatAt ?? claim.startedAt ?? 0
  const clean = hooks?.exitedAt != null && hooks.exitedAt >= lastWrite
  return {
    alive,
    exited: alive ? null : clean ? 'clean' : 'crash',
    heartbeatAt: claim.heartbeatAt,
    pid: claim.pid,
    source: claim.source,
    status: claim.status,
  }
}

interface Candidate<T> {
  readonly value: T
  readonly at: number
  readonly source: FactSource
}

/** The newest candidate; on a tie the later one in the list (higher priority). */
function newest<T>(candidates: readonly (Candidate<T> | null)[]): Candidate<T> | null {
  let out: Candidate<T> | null = null
  for (const c of candidates) if (c !== null && (out === null || c.at >= out.at)) out = c
  return out
}

export function composeClaude(nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const transcripts: CheckedContribution[] = []
  const registries: CheckedContribution[] = []
  const others: CheckedContribution[] = []
  let hookC: CheckedContribution | null = null
  let meta: CheckedContribution | null = null
  for (const c of contributions) {
    const r = role(c)
    if (r === 'transcript') transcripts.push(c)
    else if (r === 'registry') registries.push(c)
    else if (r === 'hooks') hookC = c
    else if (r === 'subagent-meta') meta = c
    else others.push(c)
  }

  const t = mergeTranscripts(transcripts)
  const hooks: Hooks | null =
    hookC === null
      ? null
      : {
          activityAt: extraNum(hookC, 'activityAt'),
          approvalAgent: extraStr(hookC, 'approvalAgent') !== null,
          event: extraStr(hookC, 'event'),
          exitedAt: extraNum(hookC, 'exitedAt'),
          facts: hookC.facts,
          promptAt: extraNum(hookC, 'promptAt'),
          questionAgent: extraStr(hookC, 'questionAgent') !== null,
          sessionStartAt: extraNum(hookC, 'sessionStartAt'),
          settledAt: extraNum(hookC, 'settledAt'),
        }

  const f: Mutable<SessionFacts> = {...EMPTY_FACTS, ...(t === null ? {} : definedOnly(t.facts))}
  const sources: Record<string, FactSource> = {...t?.facts.sources}

  // Contributions from sources this adapter does not know (a screen reader, …): plain overlay.
  for (const c of [...others].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))) {
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
  const dead = f.process !== null && !live
  const reg: Registry | null =
    claimed !== null && role(claimed) === 'registry'
      ? {
          c: claimed,
          name: extraStr(claimed, 'name'),
          status: extraStr(claimed, 'status'),
          statusAt: extraNum(claimed, 'statusAt'),
          waitingFor: extraStr(claimed, 'waitingFor'),
        }
      : null
  const regSource: FactSource | null = claimed?.processClaim?.source ?? null
  const liveReg = live && reg !== null && regSource !== null ? reg : null

  // Title: custom > ai-title > summary > registry name > subagent description > first prompt.
  const titles: {rank: string; text: string; source: FactSource}[] = []
  if (t?.facts.title != null && t.titleRank !== null && t.facts.sources?.['title'] !== undefined) {
    titles.push({rank: t.titleRank, source: t.facts.sources['title'], text: t.facts.title})
  }
  const anyReg = registries.find((c) => extraStr(c, 'name') !== null)
  if (anyReg?.processClaim !== undefined) titles.push({rank: 'registry', source: anyReg.processClaim.source, text: extraStr(anyReg, 'name') ?? ''})
  const description = meta === null ? null : extraStr(meta, 'description')
  if (meta !== null && description !== null) {
    titles.push({rank: 'meta', source: {kind: 'subagent-meta', ref: extraStr(meta, 'path') ?? ''}, text: description})
  }
  titles.sort((a, b) => TITLE_RANKS.indexOf(a.rank) - TITLE_RANKS.indexOf(b.rank))
  if (titles[0] !== undefined) {
    f.title = titles[0].text
    sources['title'] = titles[0].source
  }

  // Where and what.
  const regCwd = claimed === null ? null : extraStr(claimed, 'cwd')
  if (f.cwd === null && regCwd !== null && regSource !== null) {
    f.cwd = regCwd
    sources['cwd'] = regSource
  }
  const hookCwd = hookC === null ? null : extraStr(hookC, 'cwd')
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
    f.parentNativeId = meta?.facts.parentNativeId ?? (nativeId.includes('/') ? nativeId.slice(0, nativeId.indexOf('/')) : null)
  }

  // Did the turn end? The newest of: the transcript's last line, the last hook, the live registry.
  const tAt = max(t?.lastConvAt, t?.lastInputAt)
  const statusAt = liveReg?.statusAt ?? null
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

  // A live registry that moved on (idle or busy) after a block opened has closed it.
  const movedOn = (at: number): boolean =>
    liveReg !== null && liveReg.status !== 'waiting' && (liveReg.statusAt === null || liveReg.statusAt > at)
  // A hook's block stands until a user-side line follows it or the process is gone. A subagent's
  // (its hook carried agent_id) is not the parent's turn: the parent's turn_duration, which may be
  // written a few ms after the subagent's PermissionRequest, does not close it.
  const hookBlockStands = (b: HardBlock | null | undefined, subagent = false): b is HardBlock =>
    b != null && !dead && (subagent || t?.lastInputAt == null || b.at >= t.lastInputAt) && !movedOn(b.at)
  const hookApproval = hookBlockStands(hooks?.facts.approval, hooks?.approvalAgent) ? (hooks?.facts.approval ?? null) : null

  // Permission prompt: the live registry, else a hook.
  let approval: HardBlock | null = null
  const waiting = liveReg !== null && liveReg.status === 'waiting' ? liveReg.waitingFor : null
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

  // Open question: the transcript's (it has the text), else a hook's, else the registry's dialog.
  let question: HardBlock | null = f.question
  if (question !== null && movedOn(question.at)) question = null
  if (question === null && hookBlockStands(hooks?.facts.question, hooks?.questionAgent)) question = hooks.facts.question
  if (question === null && liveReg !== null && regSource !== null && (waiting === 'dialog open' || waiting === 'input needed')) {
    question = {at: liveReg.statusAt ?? f.lastActivityAt ?? 0, source: regSource, text: waiting}
  }
  // An AskUserQuestion dialog is the question, never a permission prompt for AskUserQuestion.
  if (question !== null && approval !== null && (approval.text === 'AskUserQuestion' || waiting === 'input needed')) approval = null
  f.question = question
  if (question !== null) sources['question'] = question.source

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

  f.sources = sources
  return f
}
