/**
 * Reaching the team store: where its URL comes from, how it is shown (never with its password),
 * and the connection (the `pg` package, imported only here and only when a team is in use).
 */
import type {Client, Pool} from 'pg'

export interface TeamTarget {
  readonly url: string
  /** Where the URL came from: "CAST_TEAM_URL", "config", or the variable config team.url_env names. */
  readonly from: string
  readonly name: string | null
}

export const TEAM_URL_ENV = 'CAST_TEAM_URL'

/** The team store's URL: CAST_TEAM_URL, else the variable team.url_env names, else team.url. */
export function teamTarget(
  env: Readonly<Record<string, string | undefined>>,
  config: {readonly teamStore?: {readonly url: string | null; readonly urlEnv: string | null; readonly name: string | null}},
): TeamTarget | null {
  const name = config.teamStore?.name ?? null
  if (env[TEAM_URL_ENV]?.trim()) return {from: TEAM_URL_ENV, name, url: env[TEAM_URL_ENV].trim()}
  const v = config.teamStore?.urlEnv
  if (v && env[v]?.trim()) return {from: v, name, url: env[v].trim()}
  if (config.teamStore?.url) return {from: 'config', name, url: config.teamStore.url}
  return null
}

/** The URL with its password (and any password parameter) replaced: safe to print. */
export function redact(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    for (const k of [...u.searchParams.keys()]) if (/pass|secret|token/i.test(k)) u.searchParams.set(k, '***')
    return u.toString()
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
  }
}

/** An error from pg without the URL or password it may quote. */
export function cleanError(error: unknown, url: string): string {
  let msg = (error as Error)?.message ?? String(error)
  try {
    const pw = decodeURIComponent(new URL(url).password)
    if (pw) msg = msg.split(pw).join('***')
  } catch {
    // not a URL
  }

  return msg.split(url).join(redact(url))
}

let pgModule: typeof import('pg') | undefined

async function pg(): Promise<typeof import('pg')> {
  if (!pgModule) {
    const m = (await import('pg')) as unknown as {default?: typeof import('pg')} & typeof import('pg')
    pgModule = m.default ?? m
    // bigint (seq) as a number: cast's sequences stay far below 2^53.
    pgModule.types.setTypeParser(20, (v: string) => Number(v))
  }

  return pgModule
}

/**
 * Set on every connection: the server ends a statement after 15 s, a lock wait after 5 s and a
 * transaction left open after 30 s, so no member's held lock or open transaction hangs a call
 * (the write functions set their own lock_timeout too: src/core/store/team/schema-v2.ts).
 */
export const SERVER_TIMEOUTS = {
  idle_in_transaction_session_timeout: 30_000,
  lock_timeout: 5000,
  statement_timeout: 15_000,
} as const

export async function openPool(url: string, options: {max?: number; connectTimeoutMs?: number} = {}): Promise<Pool> {
  const {Pool} = await pg()
  const pool = new Pool({
    application_name: 'cast',
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
    idleTimeoutMillis: 10_000,
    max: options.max ?? 2,
    // A query never hangs a command or the ingester forever on a half-dead connection.
    query_timeout: 20_000,
    ...SERVER_TIMEOUTS,
  })
  // A connection that dies (server restart, pg_terminate_backend, a cut link) emits 'error' on its
  // client, idle or checked out, and an 'error' nobody listens to ends the process: the pool
  // drops an idle one, and the query a checked-out one was running rejects, which its caller sees.
  pool.on('error', () => {})
  pool.on('connect', (c) => c.on('error', () => {}))
  return pool
}

export async function openClient(url: string, connectTimeoutMs = 3000): Promise<Client> {
  const {Client} = await pg()
  const c = new Client({
    application_name: 'cast',
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    ...SERVER_TIMEOUTS,
  })
  // Before anything can fail: a dropped connection is seen by the caller's 'end' listener or its next query.
  c.on('error', () => {})
  await c.connect()
  return c
}
