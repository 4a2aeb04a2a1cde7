/**
 * ntfy (https://ntfy.sh or a self-hosted server): the same page as Web Push, published as ntfy's
 * JSON message (POST to the server's root: topic, title, message, priority, tags, click,
 * actions). Approve / Deny (or a question's options) are ntfy `http` actions, each a one-use,
 * expiring URL of `cast web` (`/a/TOKEN`, src/lib/web/push-routes.ts). Those URLs need cast web
 * over HTTPS (notify.ntfy.actions_url starting https://): a plain-HTTP address carries no actions,
 * and the delivery says why.
 */
import type {NtfyConfig} from '../home/config-shape.js'
import type {PagePayload} from '../push/payload.js'

export interface NtfyMessage {
  readonly topic: string
  readonly title: string
  readonly message: string
  readonly priority: number
  readonly tags: readonly string[]
  readonly click?: string
  readonly actions: readonly {action: 'http' | 'view'; label: string; url: string; method?: 'POST'; clear?: boolean}[]
}

/** Why ntfy's actions are left out, or null when they may be sent. */
export function ntfyActionsRefused(c: NtfyConfig): string | null {
  if (c.actionsUrl === null) return 'no notify.ntfy.actions_url: the page carries no actions'
  if (!/^https:\/\//i.test(c.actionsUrl)) return 'actions need cast web over HTTPS (notify.ntfy.actions_url is not https://): none sent'
  return null
}

export function ntfyMessage(p: PagePayload, c: NtfyConfig): NtfyMessage {
  const base = c.actionsUrl?.replace(/\/+$/, '') ?? null
  const refused = ntfyActionsRefused(c)
  const actions =
    refused === null && base !== null
      ? p.actions
          .filter((a) => a.token !== undefined)
          .map((a) => ({action: 'http' as const, clear: true, label: a.title, method: 'POST' as const, url: `${base}/a/${a.token!}`}))
      : []
  return {
    actions,
    message: p.body || p.title,
    priority: p.actions.length > 0 ? 4 : 3,
    tags: ['cast'],
    title: p.title,
    topic: c.topic,
    ...(refused === null && base !== null ? {click: `${base}${p.url}`} : {}),
  }
}

/** Publish one message; throws with the server's one-line answer on a refusal. */
export async function publishNtfy(m: NtfyMessage, c: NtfyConfig): Promise<void> {
  const r = await fetch(c.server.replace(/\/+$/, '') + '/', {
    body: JSON.stringify(m),
    headers: {'content-type': 'application/json', ...(c.token ? {authorization: `Bearer ${c.token}`} : {})},
    method: 'POST',
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  })
  const text = await r.text().catch(() => '')
  if (!r.ok) throw new Error(`ntfy answered ${r.status}: ${text.split('\n')[0]!.slice(0, 200)}`)
}
