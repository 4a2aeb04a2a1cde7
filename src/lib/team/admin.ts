/**
 * One call to the team store for `cast team admit|members|remove`: the URL from the config or
 * CAST_TEAM_URL, and every server refusal as one line with its exit code (docs/contract.md).
 */
import type {PoolClient} from 'pg'

import {EXIT} from '../base/exit-codes.js'

interface Cmd {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly fail: (message: string, exit: number) => never
}

export async function teamAdminCall<T>(cmd: Cmd, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const {loadConfig} = await import('../home/config.js')
  const {cleanError, openPool, redact, teamTarget} = await import('../../core/store/team/client.js')
  const target = teamTarget(cmd.env, await loadConfig(cmd.env))
  if (!target) return cmd.fail('No team store: join one first (cast team join postgres://…), or set CAST_TEAM_URL.', EXIT.USAGE)
  const pool = await openPool(target.url, {max: 1})
  try {
    const c = await pool.connect()
    try {
      return await fn(c)
    } finally {
      c.release()
    }
  } catch (error) {
    const e = error as {code?: string}
    const why = cleanError(error, target.url).split('\n')[0]!
    if (e.code === '42501') return cmd.fail(`The team store refused: ${why}.`, EXIT.REFUSED)
    if (e.code === '42883' || e.code === '42P01' || e.code === '3F000')
      return cmd.fail(
        `The team store at ${redact(target.url)} has no team schema v2 yet: the admin runs cast team join with the owner's URL.`,
        EXIT.FAILURE,
      )
    if (e.code === '42704') return cmd.fail(`${why}.`, EXIT.NOT_FOUND)
    if (e.code === '22023') return cmd.fail(`${why}.`, EXIT.USAGE)
    if (e.code === '23505') return cmd.fail(`${why}.`, EXIT.REFUSED)
    return cmd.fail(`The team store at ${redact(target.url)} failed: ${why}`, EXIT.FAILURE)
  } finally {
    await pool.end().catch(() => {})
  }
}
