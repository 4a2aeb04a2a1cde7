/**
 * A verb the page runs on a teammate's session goes where the CLI's goes: the command's team
 * branch (src/lib/team/request.ts) signs it with this machine's key and queues it on the team store
 * for the machine that runs the agent. The page asks for it with --no-wait, so a machine that is
 * slow or offline holds no other verb of the page; it then follows the action here until the
 * executing machine reports its result (src/lib/team/executor.ts). Only the actions this server
 * queued can be followed.
 */
import type {Store} from '../../core/store/store.js'
import {loadConfig} from '../home/config.js'
import type {Env} from '../home/env.js'

export interface ActionReport {
  readonly action_id: number
  /** queued or running: still open; delivered or refused: what the executing machine reported. */
  readonly status: string
  readonly result: Record<string, unknown> | null
  /** One line for a person: what the executing machine reported, or what is awaited. */
  readonly line: string
  readonly exit: number
}

/** The outcome the executing machine reported, waiting up to waitMs for it (LISTEN, then polling). */
export async function followAction(store: Store, env: Env, id: number, waitMs: number): Promise<ActionReport | null> {
  const {teamContext} = await import('../team/context.js')
  const ctx = teamContext(store, env, await loadConfig(env))
  if (!ctx) return null
  const {openPool} = await import('../../core/store/team/client.js')
  const {waitForAction} = await import('../../core/store/team/actions.js')
  const pool = await openPool(ctx.target.url, {max: 1})
  try {
    const s = await waitForAction(ctx.target.url, pool, id, waitMs)
    const r = s.result
    if (s.status === 'delivered') return {action_id: id, exit: 0, line: 'done', result: r, status: s.status}
    if (s.status === 'refused') {
      const error = typeof r?.['error'] === 'string' ? r['error'].replace(/\.+$/, '') : 'refused'
      const exit = typeof r?.['exit'] === 'number' && [2, 3, 4, 5].includes(r['exit']) ? r['exit'] : 5
      return {action_id: id, exit, line: error, result: r, status: s.status}
    }

    return {action_id: id, exit: 0, line: s.status === 'running' ? 'being carried out' : 'queued', result: null, status: s.status}
  } finally {
    await pool.end().catch(() => {})
  }
}
