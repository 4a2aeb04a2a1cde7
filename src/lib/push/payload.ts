/**
 * What a page to the phone says, for Web Push and ntfy alike: built from the notifier's
 * notification (src/core/model/notify.ts) and the sessions as they are now. Small (a Web Push
 * message is at most ~3,900 bytes) and sanitized (notificationText: no controls, no bidi
 * overrides). A single session's permission prompt carries Approve / Deny; a question with
 * options, its first two options; each bound to that exact ask (askId) through a one-use,
 * expiring token (files.ts grantActions). The content-free mode sends only a count.
 */
import crypto from 'node:crypto'

import type {Notification} from '../../core/model/notify.js'
import {notificationText} from '../../core/model/sanitize.js'
import type {SessionRow} from '../../core/store/store.js'
import {ACTION_TTL_MS, type ActionGrant, type ActionVerb, grantActions} from './files.js'

/** Full text (agent, title, ask line) or none (a count only). */
export type PushContent = 'full' | 'none'

export interface PageAction {
  /** approve | deny | option1 | option2 | open */
  readonly action: string
  readonly title: string
  /** The one-use token (absent for "open"). */
  readonly token?: string
}

export interface PagePayload {
  readonly v: 1
  /** Replaces an earlier notification of the same tag (the receipt replaces the page). */
  readonly tag: string
  readonly title: string
  readonly body: string
  readonly sessions: readonly string[]
  readonly actions: readonly PageAction[]
  /** The page to open on a tap. */
  readonly url: string
  /** The Questions count, for the app badge. */
  readonly badge: number
}

/** The identity of an ask: the session, its kind, when it opened and what it says. A new ask is a new id. */
export function askId(row: Pick<SessionRow, 'id' | 'facts'>): string | null {
  const f = row.facts
  const ask = f.approval ? ['approval', f.approval] : f.question ? ['question', f.question] : null
  if (!ask) return null
  const [kind, block] = ask as [string, {text: string; at: number}]
  return crypto.createHash('sha256').update(`${row.id}\n${kind}\n${block.at}\n${block.text}`).digest('base64url').slice(0, 16)
}

const clip = (s: string, n: number): string => (s.length > n ? s.slice(0, n - 1) + '…' : s)

/** The options a notification may offer for a question: the first two, when its agent's files list them. */
export function questionOptions(row: Pick<SessionRow, 'facts'>): string[] {
  return (row.facts.question?.choices ?? []).slice(0, 2).map((c) => c.label)
}

export function buildPayload(
  n: Notification,
  rows: ReadonlyMap<string, SessionRow>,
  o: {content: PushContent; via: 'push' | 'ntfy'; home: string; now: number; questions: number; actions: boolean},
): PagePayload {
  const sessions = [...n.sessions]
  const tag = `cast-${crypto.createHash('sha256').update(sessions.join(',')).digest('base64url').slice(0, 12)}`
  const url = sessions.length === 1 ? `/#s=${encodeURIComponent(sessions[0]!)}` : '/'
  const open: PageAction = {action: 'open', title: 'Open'}
  if (o.content === 'none') {
    const k = sessions.length
    return {
      actions: [],
      badge: o.questions,
      body: '',
      sessions: [],
      tag: 'cast-count',
      title: `cast: ${k} session${k === 1 ? '' : 's'} need${k === 1 ? 's' : ''} you`,
      url: '/',
      v: 1,
    }
  }

  const base = {
    badge: o.questions,
    body: clip(notificationText(n.body), 600),
    sessions,
    tag,
    title: clip(notificationText(n.summary), 120),
    url,
    v: 1 as const,
  }
  const row = sessions.length === 1 ? rows.get(sessions[0]!) : undefined
  const ask = row ? askId(row) : null
  if (!o.actions || !row || !ask) return {...base, actions: sessions.length === 1 ? [open] : []}
  const grant = (verb: ActionVerb, option: string | null): ActionGrant => ({
    ask,
    expires_at: o.now + ACTION_TTL_MS,
    option,
    session: row.id,
    verb,
    via: o.via,
  })
  if (row.facts.approval) {
    const [yes, no] = grantActions(o.home, [grant('approve', null), grant('deny', null)], o.now)
    return {
      ...base,
      actions: [
        {action: 'approve', title: 'Approve', token: yes},
        {action: 'deny', title: 'Deny', token: no},
      ],
    }
  }

  const options = questionOptions(row)
  if (options.length === 0) return {...base, actions: [open]}
  const tokens = grantActions(
    o.home,
    options.map((label) => grant('choose', label)),
    o.now,
  )
  return {
    ...base,
    actions: [...options.map((label, i) => ({action: `option${i + 1}`, title: clip(notificationText(label), 40), token: tokens[i]})), open],
  }
}
