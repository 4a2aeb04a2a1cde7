/** What `cast notify` and `cast daemon --notify` share: the config with flags over it, and the printed line. */
import type {CastConfig} from '../home/config.js'
import {oneLine} from '../../core/model/sanitize.js'
import {localTime} from '../views/views.js'
import type {BackendName} from './backends.js'
import {DEFAULT_NOTIFIER_CONFIG, type NotifierConfig, type Sent} from './notifier.js'

export function notifierConfig(config: CastConfig, backends?: readonly string[]): NotifierConfig {
  const base: NotifierConfig = config.notify ? {...config.notify} : DEFAULT_NOTIFIER_CONFIG
  return backends && backends.length > 0 ? {...base, backends: backends as BackendName[]} : base
}

export function describeSent(s: Sent): Record<string, unknown>
export function describeSent(s: Sent, human: true): string
export function describeSent(s: Sent, human?: boolean): Record<string, unknown> | string {
  const n = s.notification
  if (!human) {
    return {
      at: new Date(s.at).toISOString(),
      body: n.body,
      delivered: s.deliveries.map((d) => ({backend: d.backend, error: d.error ?? null, ok: d.ok})),
      held: s.held ?? null,
      kind: n.kind,
      sessions: n.sessions,
      summary: n.summary,
      urgency: n.urgency,
    }
  }

  // A terminal reads this line (cast notify's stdout, the daemon's log): agent text made visible.
  const via = s.deliveries.map((d) => (d.ok ? d.backend : `${d.backend} failed: ${oneLine(d.error ?? '')}`)).join(', ')
  const body = n.body.split('\n').map(oneLine).join(' · ')
  const held = s.held ? `  [phone held: ${oneLine(s.held)}]` : ''
  return `${localTime(s.at, s.at)}  ${oneLine(n.summary)} — ${body}${via ? `  [${via}]` : ''}${held}`
}
