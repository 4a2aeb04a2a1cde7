/**
 * The phone's backends: Web Push to paired devices (src/lib/push/) and ntfy. Each page is built
 * from the notification and the sessions as they are now (src/lib/push/payload.ts).
 */
import type {Notification} from '../../core/model/notify.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import type {NotifyConfig} from '../home/config-shape.js'
import {castHome, type Env} from '../home/env.js'
import {buildPayload} from '../push/payload.js'
import type {Delivery} from './backends.js'

export const PHONE_BACKENDS = ['push', 'ntfy'] as const
export type PhoneBackend = (typeof PHONE_BACKENDS)[number]

export interface PhoneContext {
  readonly store: Store
  readonly env: Env
  readonly now: number
  readonly config: Pick<NotifyConfig, 'push' | 'ntfy'>
}

function rowsOf(store: Store, ids: readonly string[]): Map<string, SessionRow> {
  return new Map(store.loadSessions([...ids]).map((r) => [r.id, r]))
}

export function questionsCount(store: Store): number {
  return store.loadSessions().filter((r) => r.bucket === 'questions').length
}

/** Page one phone backend; null when Web Push has no device subscribed (nothing to say). */
export async function deliverPhone(n: Notification, backend: PhoneBackend, ctx: PhoneContext): Promise<Delivery | null> {
  const home = castHome(ctx.env)
  const rows = rowsOf(ctx.store, n.sessions)
  const questions = questionsCount(ctx.store)
  try {
    if (backend === 'push') {
      const {pushToDevices} = await import('../push/send.js')
      const payload = buildPayload(n, rows, {
        actions: true,
        content: ctx.config.push?.content ?? 'full',
        home,
        now: ctx.now,
        questions,
        via: 'push',
      })
      const results = await pushToDevices(home, ctx.env, payload, ctx.now)
      if (results.length === 0) return null
      const sent = results.filter((r) => r.outcome === 'sent').length
      const bad = results.filter((r) => r.outcome !== 'sent')
      return {
        backend,
        ok: sent > 0,
        ...(bad.length > 0 ? {error: bad.map((r) => `${r.device}: ${r.outcome}${r.detail ? ` (${r.detail})` : ''}`).join('; ')} : {}),
      }
    }

    const c = ctx.config.ntfy
    if (!c) return {backend, error: 'notify.ntfy is not set in the config (server, topic)', ok: false}
    const {ntfyActionsRefused, ntfyMessage, publishNtfy} = await import('./ntfy.js')
    const refused = ntfyActionsRefused(c)
    const payload = buildPayload(n, rows, {
      actions: refused === null,
      content: ctx.config.push?.content ?? 'full',
      home,
      now: ctx.now,
      questions,
      via: 'ntfy',
    })
    await publishNtfy(ntfyMessage(payload, c), c)
    return {
      backend,
      ok: true,
      ...(refused && payload.sessions.length === 1 && rows.get(payload.sessions[0]!)?.facts.approval ? {error: refused} : {}),
    }
  } catch (error) {
    return {backend, error: (error as Error).message.split('\n')[0], ok: false}
  }
}
