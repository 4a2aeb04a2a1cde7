/**
 * Is this store in a team, and where is its server: the question every team path asks first.
 * Nothing here imports `pg`; a store that never joined pays for nothing.
 */
import {teamJoin, type TeamJoin} from '../../core/store/outbox.js'
import type {Store} from '../../core/store/store.js'
import {type TeamTarget, teamTarget} from '../../core/store/team/client.js'

export type Env = Readonly<Record<string, string | undefined>>
export type ConfigLike = Parameters<typeof teamTarget>[1]

export interface TeamContext {
  readonly target: TeamTarget
  readonly join: TeamJoin
}

/** The team this store joined and its server, or null (no team: nothing to do, nothing imported). */
export function teamContext(store: Store, env: Env, config: ConfigLike): TeamContext | null {
  const join = teamJoin(store)
  if (!join) return null
  const target = teamTarget(env, config)
  if (!target) return null
  return {join, target}
}
