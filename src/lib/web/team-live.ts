/**
 * Teammates' changes on the page: a LISTEN on the team store's `cast_team` channel (a teammate's
 * machine published transitions: cast_team.publish notifies it, src/core/store/team/schema-v2.ts)
 * asks for a fresh listing, at most one every 250 ms. A connection that drops is opened again after
 * a pause (1 s, doubling to 30 s). Without a team joined, nothing is opened.
 */
import type {Client} from 'pg'

import type {Store} from '../../core/store/store.js'
import {loadConfig} from '../home/config.js'
import type {Env} from '../home/env.js'

export interface TeamFollower {
  stop(): Promise<void>
}

export async function followTeam(store: Store, env: Env, changed: () => void): Promise<TeamFollower | null> {
  const {teamContext} = await import('../team/index.js')
  const ctx = teamContext(store, env, await loadConfig(env))
  if (!ctx) return null
  const {openClient} = await import('../../core/store/team/client.js')
  let client: Client | null = null
  let stopped = false
  let pause = 1000
  let retry: NodeJS.Timeout | null = null
  let soon: NodeJS.Timeout | null = null
  const notified = (): void => {
    soon ??= setTimeout(() => {
      soon = null
      if (!stopped) changed()
    }, 250)
  }

  const connect = async (): Promise<void> => {
    retry = null
    if (stopped) return
    let c: Client | null = null
    const dropped = (): void => {
      if (c === null || client !== c) return
      client = null
      c.end().catch(() => undefined)
      if (!stopped) retry = setTimeout(() => void connect(), pause)
      pause = Math.min(30_000, pause * 2)
    }

    try {
      c = await openClient(ctx.target.url)
      c.on('error', dropped)
      c.on('end', dropped)
      c.on('notification', notified)
      client = c
      await c.query('LISTEN cast_team')
      pause = 1000
      // What changed while no one listened.
      notified()
    } catch {
      if (client === c && c !== null) dropped()
      else {
        await c?.end().catch(() => undefined)
        if (!stopped) retry = setTimeout(() => void connect(), pause)
        pause = Math.min(30_000, pause * 2)
      }
    }
  }

  await connect()
  return {
    async stop() {
      stopped = true
      if (retry) clearTimeout(retry)
      if (soon) clearTimeout(soon)
      const c = client
      client = null
      await c?.end().catch(() => undefined)
    },
  }
}
