/**
 * `cast sessions --fleet`: each configured host's own `cast sessions --json` over ssh, all hosts at
 * once, each within its own budget (the host's `budget`, else `fleet.budget`, default 1.5 s), merged
 * with this machine's listing into the same sections. A host that does not answer is one status
 * line; its last good listing (./cache.ts) is shown marked stale.
 */
import type {Counts} from '../../core/model/tally.js'
import {SECTION_ORDER} from '../../core/model/types.js'
import type {ListingJson} from '../../core/model/wire.js'
import type {CastConfig, HostConfig} from '../home/config-shape.js'
import type {Env} from '../home/env.js'
import {readCache, writeCache} from './cache.js'
import {hostSpec} from './hosts.js'
import {remoteCastCommand} from './remote-argv.js'
import {type FleetSessionJson, parseRemoteListing} from './remote-listing.js'
import {runSsh, sshFailure} from './ssh.js'

export const DEFAULT_BUDGET_MS = 1500

/** How one host answered: `ok`, or `unreachable` / `garbage` (then `stale` rows from its cache, if any). */
export interface FleetHostJson {
  name: string
  status: 'ok' | 'unreachable' | 'garbage'
  /** Why not, one line ("ssh: connect to host … timed out"); null when ok. */
  error: string | null
  /** When it first failed since it last answered (ISO), null when ok. */
  down_since: string | null
  /** When its listed sessions were fetched (ISO); null when nothing is known of it. */
  fetched_at: string | null
  stale: boolean
  sessions: number
  ms: number
}

/** `cast sessions --fleet --json`: the listing, every row with `host` (null: this machine), and each host's status. */
export type FleetListingJson = Omit<ListingJson, 'sessions'> & {fleet: true; hosts: FleetHostJson[]; sessions: FleetSessionJson[]}

export function budgetOf(h: HostConfig, config: Pick<CastConfig, 'fleet'>): number {
  return h.budgetMs ?? config.fleet?.budgetMs ?? DEFAULT_BUDGET_MS
}

export interface HostAnswer {
  readonly host: FleetHostJson
  readonly sessions: FleetSessionJson[]
  readonly counts: Partial<Counts> | null
}

/** The remote listing's arguments: the filters a person gave, as flags (`--name=value`). */
export type ListingFlags = readonly string[]

/** One host's listing within its budget; never throws. */
export async function fetchHost(h: HostConfig, env: Env, budgetMs: number, flags: ListingFlags, now: () => number): Promise<HostAnswer> {
  const t0 = Date.now()
  let spec
  try {
    spec = hostSpec(h)
  } catch (error) {
    return failed(h, env, 'garbage', `config: ${(error as Error).message}`, now(), 0)
  }

  const r = await runSsh(spec, env, remoteCastCommand('sessions', [], {flags, separator: false}), {timeoutMs: budgetMs})
  const ms = Date.now() - t0
  const why = sshFailure(r, budgetMs)
  if (why !== null) return failed(h, env, 'unreachable', why, now(), ms)
  if (r.code !== 0 && !r.truncated) {
    const first = r.stderr.split('\n').find((l) => l.trim() !== '') ?? `exit ${r.code}`
    return failed(h, env, 'garbage', `its cast sessions failed (exit ${r.code}): ${first.slice(0, 300)}`, now(), ms)
  }

  const parsed = parseRemoteListing(h.name, r.stdout, r.truncated)
  if (!parsed.ok) return failed(h, env, 'garbage', parsed.line, now(), ms)
  const at = now()
  writeCache(env, h.name, {at, downSince: null, sessions: parsed.sessions})
  let counts: Partial<Counts> | null = null
  try {
    counts = (JSON.parse(r.stdout) as {counts?: Partial<Counts>}).counts ?? null
  } catch {
    counts = null
  }

  return {
    counts,
    host: {
      down_since: null,
      error: null,
      fetched_at: new Date(at).toISOString(),
      ms,
      name: h.name,
      sessions: parsed.sessions.length,
      stale: false,
      status: 'ok',
    },
    sessions: parsed.sessions,
  }
}

function failed(h: HostConfig, env: Env, status: 'unreachable' | 'garbage', error: string, now: number, ms: number): HostAnswer {
  const cache = readCache(env, h.name)
  const downSince = cache?.downSince ?? now
  if (cache && cache.downSince == null) writeCache(env, h.name, {...cache, downSince})
  const sessions = (cache?.sessions ?? []).map((s) => ({...s, host: h.name, stale: true as const}))
  return {
    counts: null,
    host: {
      down_since: new Date(downSince).toISOString(),
      error,
      fetched_at: cache ? new Date(cache.at).toISOString() : null,
      ms,
      name: h.name,
      sessions: sessions.length,
      stale: cache !== null,
      status,
    },
    sessions,
  }
}

/** Every host at once, each within its own budget. */
export function fetchFleet(
  config: Pick<CastConfig, 'fleet' | 'hosts'>,
  env: Env,
  flags: ListingFlags,
  now: () => number,
): Promise<HostAnswer[]> {
  return Promise.all((config.hosts ?? []).map((h) => fetchHost(h, env, budgetOf(h, config), flags, now)))
}

const RANK = new Map(SECTION_ORDER.map((b, i) => [b, i]))

/** This machine's listing and the hosts' answers in one: the same sections, local rows first within each. */
export function mergeFleet(local: ListingJson, answers: readonly HostAnswer[]): FleetListingJson {
  const counts: Record<string, number> = {...local.counts}
  for (const a of answers) {
    if (a.counts === null) continue
    for (const [k, v] of Object.entries(a.counts)) if (typeof v === 'number' && k in counts) counts[k] = (counts[k] ?? 0) + v
  }

  const all: FleetSessionJson[] = [...local.sessions.map((s) => ({...s, host: null})), ...answers.flatMap((a) => a.sessions)]
  const ranked = all.map((s, i) => ({i, r: RANK.get(s.bucket) ?? SECTION_ORDER.length, s}))
  ranked.sort((a, b) => a.r - b.r || a.i - b.i)
  const {sessions: _drop, ...head} = local
  return {...head, counts: counts as unknown as Counts, fleet: true, hosts: answers.map((a) => a.host), sessions: ranked.map((x) => x.s)}
}
