/**
 * The one verb catalog (seed 000: "The verbs come from one catalog … that the triage bar, the
 * right-click menu, the keyboard and the intro tour all render from"), ordered as the seed orders
 * them: answering first, then parking from lightest to heaviest, then filing. The CLI's verb
 * commands take their summaries from it, `cast inbox` its keys and help page, `cast web` its
 * triage bar, menu, keys and palette. Every verb runs through the one verb runner
 * (src/lib/verbs/index.ts), whichever front-end asks: its handler holds the verb's rules. Pure data.
 */
import {parseDuration} from './durations.js'
import type {Bucket, Reason} from './types.js'

/** What a verb asks for before it runs: nothing, a time, a label, a text, or a confirmation. */
export type VerbInput = 'none' | 'time' | 'label' | 'text' | 'confirm'

export type VerbName =
  | 'approve'
  | 'deny'
  | 'reply'
  | 'nudge'
  | 'defer'
  | 'dormant'
  | 'stash'
  | 'stash-hide'
  | 'kill'
  | 'pin'
  | 'unpin'
  | 'label'
  | 'snooze'
  | 'wake'
  | 'done'
  | 'needs-input'
  | 'unread'
  | 'rename'
  | 'restore'
  | 'undo'

/** The actions a teammate's machine may ask this one to carry out (src/lib/team/protocol.ts). */
export type TeamAction = 'send' | 'approve' | 'deny' | 'kill' | 'own' | 'answer'

export interface Verb {
  readonly name: VerbName
  /** What the triage bar, the menu and the palette say. */
  readonly label: string
  /** The key in `cast inbox` and `cast web` (a single character; case matters). */
  readonly key: string
  /** One line for help pages and the command's summary. */
  readonly summary: string
  readonly takes: VerbInput
  /** The pure plan in src/core/model/triage.ts the command applies (null: not a triage verb). */
  readonly plan: string | null
  /** Only for a session with an open permission prompt. */
  readonly needsApproval?: boolean
  /** Only for a session that reads this reason now (nudge: a stalled one). */
  readonly forReason?: Reason
  /** Acts on no session (undo). */
  readonly global?: boolean
  /** The team action that carries it out on the session's own machine (absent: this machine only). */
  readonly remote?: TeamAction
  /** It files the row away (out of its section): the cursor stays where it was, on the row that takes its place. */
  readonly filesAway?: boolean
  /** A drop target for a drag of a card into this section (seed 000: Working is none). */
  readonly dropOn?: Bucket
  /** What asks for the value ("{title}" stands for the session's title). */
  readonly prompt?: string
  /** What a confirmation says beside the question. */
  readonly confirm?: string
  /**
   * The cast command line for the same verb (shown in help and docs); `value` is the time, label,
   * text or nothing; `ifState` (STATE:REASON) makes a reply refuse (exit 5) when the session is no
   * longer in the state the person saw.
   */
  argv(session: string, value?: string, ifState?: string): string[]
}

/**
 * What a nudge sends: the agent's background results are waiting for it. Short, and a turn of its
 * own, as `cast send` delivers any message (typed into its pane, or a headless resume).
 */
export const NUDGE_MESSAGE = 'Your background tasks have finished: read their results and continue.'

const v = (verb: Verb): Verb => verb

/** The catalog, in the seed's order. */
export const VERBS: readonly Verb[] = [
  v({
    argv: (s) => ['approve', s],
    key: 'a',
    label: 'Approve',
    name: 'approve',
    needsApproval: true,
    remote: 'approve',
    plan: null,
    summary: 'Approve the open permission prompt of a session.',
    takes: 'none',
  }),
  v({
    argv: (s) => ['deny', s],
    key: 'd',
    label: 'Deny',
    name: 'deny',
    needsApproval: true,
    remote: 'deny',
    plan: null,
    summary: 'Deny the open permission prompt of a session.',
    takes: 'none',
  }),
  v({
    argv: (s, text = '', ifState) => ['send', s, ...(ifState ? ['--if', ifState] : []), '--', text],
    key: 'r',
    label: 'Reply',
    prompt: 'reply to {title}: ',
    name: 'reply',
    plan: null,
    remote: 'send',
    summary: 'Send a message into a session as its next turn.',
    takes: 'text',
  }),
  v({
    argv: (s) => ['send', s, '--if', 'needs_input:stalled', '--', NUDGE_MESSAGE],
    forReason: 'stalled',
    key: 'c',
    label: 'Nudge',
    name: 'nudge',
    plan: null,
    remote: 'send',
    summary: 'Send a stalled session (its background work finished, its turn never resumed) a short message to continue.',
    takes: 'none',
  }),
  v({
    argv: (s) => ['defer', s],
    key: 'f',
    label: 'Defer',
    name: 'defer',
    plan: 'planDefer',
    summary: 'Drop sessions down their section until their next activity.',
    takes: 'none',
  }),
  v({
    argv: (s) => ['mark', 'dormant', s],
    dropOn: 'dormant',
    key: 'o',
    label: 'Dormant',
    filesAway: true,
    name: 'dormant',
    plan: 'planMark',
    summary: 'Park it: a machine wakes it (mark dormant).',
    takes: 'none',
  }),
  v({
    argv: (s) => ['stash', s],
    key: 'x',
    label: 'Stash',
    filesAway: true,
    name: 'stash',
    plan: 'planStash',
    summary: 'Stash sessions out of the inbox; they come back when they stall or ask.',
    takes: 'none',
  }),
  v({
    argv: (s) => ['stash', s, '--hide'],
    key: 'X',
    label: 'Stash and hide',
    filesAway: true,
    name: 'stash-hide',
    plan: 'planStash',
    summary: 'Stash through trigger wakes and stalls: only an ask brings it back.',
    takes: 'none',
  }),
  v({
    argv: (s) => ['kill', s],
    key: 'K',
    label: 'Kill',
    confirm: 'It tears the agent down (the transcript stays).',
    filesAway: true,
    name: 'kill',
    plan: 'planKill',
    remote: 'kill',
    summary: 'Kill sessions: stop the agent, file them under Killed.',
    takes: 'confirm',
  }),
  v({
    argv: (s) => ['pin', s],
    key: 'p',
    label: 'Pin',
    name: 'pin',
    plan: 'planPin',
    summary: 'Pin sessions to the top of the inbox.',
    takes: 'none',
  }),
  v({argv: (s) => ['unpin', s], key: 'P', label: 'Unpin', name: 'unpin', plan: 'planPin', summary: 'Unpin sessions.', takes: 'none'}),
  v({
    argv: (s, label = '') => ['label', label, s],
    key: 'l',
    label: 'Label',
    prompt: 'label {title} as: ',
    name: 'label',
    plan: 'planLabel',
    summary: 'Put your personal label on sessions, or clear it.',
    takes: 'label',
  }),
  v({
    argv: (s, when = '') => ['snooze', s, parseDuration(when.trim()) === null ? '--until' : '--for', when.trim()],
    key: 's',
    label: 'Snooze',
    prompt: 'snooze {title} for (30m, 2h) or until (tomorrow 9am): ',
    filesAway: true,
    name: 'snooze',
    plan: 'planSnooze',
    summary: 'Snooze sessions until a time; they come back as needs input.',
    takes: 'time',
  }),
  v({
    argv: (s) => ['wake', s],
    key: 'w',
    label: 'Move to Needs Input now',
    name: 'wake',
    plan: 'planWake',
    summary: 'Move sessions to Needs Input now (ends a snooze early).',
    takes: 'none',
  }),
  v({
    argv: (s) => ['mark', 'done', s],
    dropOn: 'done',
    key: 'e',
    label: 'Mark done',
    filesAway: true,
    name: 'done',
    plan: 'planMark',
    summary: 'Delivered; read it when you like (mark done).',
    takes: 'none',
  }),
  v({
    argv: (s) => ['mark', 'needs-input', s],
    dropOn: 'needs_input',
    key: 'i',
    label: 'Mark needs input',
    name: 'needs-input',
    plan: 'planMark',
    summary: 'The ball is in your court (mark needs-input).',
    takes: 'none',
  }),
  v({
    argv: (s) => ['mark', 'unread', s],
    key: 'U',
    label: 'Mark unread',
    name: 'unread',
    plan: 'planMark',
    summary: 'Mark it unread.',
    takes: 'none',
  }),
  v({
    argv: (s, title = '') => ['rename', s, '--', title],
    key: 'R',
    label: 'Rename',
    prompt: 'rename {title} to: ',
    name: 'rename',
    plan: 'planRename',
    summary: 'Rename a session (in cast only).',
    takes: 'text',
  }),
  v({
    argv: (s) => ['restore', s],
    key: 'b',
    label: 'Restore',
    name: 'restore',
    plan: 'planRestore',
    summary: 'Restore stashed, dismissed, snoozed or killed sessions.',
    takes: 'none',
  }),
  v({
    argv: () => ['undo'],
    global: true,
    key: 'u',
    label: 'Undo',
    name: 'undo',
    plan: null,
    summary: 'Undo your last triage action (--list shows the history).',
    takes: 'none',
  }),
]

/**
 * The team's actions: the remote marks of the catalog, and the two a teammate may ask that no
 * triage bar shows (own: a handoff; answer: a decision card).
 */
export const TEAM_ACTIONS: readonly TeamAction[] = [...VERBS.flatMap((x) => (x.remote ? [x.remote] : [])), 'own', 'answer']

const BY_NAME = new Map(VERBS.map((verb) => [verb.name, verb]))
const BY_KEY = new Map(VERBS.map((verb) => [verb.key, verb]))

export function verb(name: VerbName): Verb {
  const found = BY_NAME.get(name)
  if (!found) throw new TypeError(`no verb ${name}`)
  return found
}

export function isVerbName(name: string): name is VerbName {
  return VERBS.some((x) => x.name === name)
}

/** The verb a key runs, or undefined. */
export function verbForKey(key: string): Verb | undefined {
  return BY_KEY.get(key)
}

/** A verb of the catalog as data (the `verbs` of `cast web`'s listing, src/core/model/wire.ts). */
export interface VerbJson {
  name: VerbName
  label: string
  key: string
  summary: string
  /** What asks for the value ("{title}" stands for the session's title), or null. */
  prompt: string | null
  takes: VerbInput
  needs_approval: boolean
  /** Only for a session that reads this reason (nudge: stalled), else null. */
  for_reason: Reason | null
  global: boolean
  drop_on: Bucket | null
}

/** The catalog as data (for a page or a help screen): everything but the command line. */
export function verbTable(): VerbJson[] {
  return VERBS.map((x) => ({
    drop_on: x.dropOn ?? null,
    global: x.global === true,
    key: x.key,
    label: x.label,
    name: x.name,
    needs_approval: x.needsApproval === true,
    for_reason: x.forReason ?? null,
    prompt: x.prompt ?? null,
    summary: x.summary,
    takes: x.takes,
  }))
}
