/**
 * What `cast doctor` asks the store: per agent, how many sessions, which files were read and how
 * many malformed lines they had, and which sources have spoken (process claims by kind, hook
 * events, screen readings). Read-only.
 */
import {text} from './rows.js'
import type {Store} from './store.js'

type Row = Record<string, unknown>

export interface StoreHealth {
  readonly schemaVersion: number
  /** `PRAGMA quick_check`: 'ok', or the first problem SQLite found. */
  readonly check: string
}

export function storeHealth(store: Store): StoreHealth {
  const version = Number((store.q('PRAGMA user_version').get() as Row).user_version)
  const check = text(Object.values(store.q('PRAGMA quick_check(1)').get() as Row)[0] ?? 'ok')
  return {check, schemaVersion: version}
}

export interface AgentStoreStats {
  readonly agent: string
  readonly sessions: number
  /** Agent files read (transcripts, registries, databases): not hook or screen sources. */
  readonly files: number
  readonly parseErrors: number
  /** Sessions a process claim names, by the claim's source kind (registry, process, …). */
  readonly claims: Readonly<Record<string, number>>
  /** Sessions that received hook events. */
  readonly hookSessions: number
  /** Sessions a tmux pane is being read for right now. */
  readonly screenSessions: number
}

/** Per-agent figures from the sessions, files and contributions tables. */
export function agentStoreStats(store: Store): Map<string, AgentStoreStats> {
  const out = new Map<
    string,
    {sessions: number; files: number; parseErrors: number; claims: Record<string, number>; hookSessions: number; screenSessions: number}
  >()
  const get = (agent: string) => {
    let s = out.get(agent)
    if (!s) out.set(agent, (s = {claims: {}, files: 0, hookSessions: 0, parseErrors: 0, screenSessions: 0, sessions: 0}))
    return s
  }

  for (const r of store.q('SELECT agent, COUNT(*) AS n FROM sessions GROUP BY agent').all() as Row[])
    get(String(r.agent)).sessions = Number(r.n)
  for (const r of store
    .q(`SELECT agent, COUNT(*) AS n, COALESCE(SUM(parse_errors), 0) AS errors FROM files WHERE path NOT LIKE '%://%' GROUP BY agent`)
    .all() as Row[]) {
    const s = get(String(r.agent))
    s.files = Number(r.n)
    s.parseErrors = Number(r.errors)
  }

  for (const r of store
    .q(
      `SELECT agent, json_extract(data, '$.processClaim.source.kind') AS kind, COUNT(DISTINCT native_id) AS n
       FROM contributions WHERE data LIKE '%"processClaim"%' GROUP BY agent, kind`,
    )
    .all() as Row[]) {
    if (r.kind === null || r.kind === undefined) continue
    get(String(r.agent)).claims[text(r.kind)] = Number(r.n)
  }

  for (const r of store
    .q(
      `SELECT agent, SUM(path >= 'hooks://' AND path < 'hooks:/0') AS hooks, SUM(path >= 'screen://' AND path < 'screen:/0') AS screen
       FROM (SELECT DISTINCT agent, native_id, path FROM contributions WHERE path LIKE '%://%') GROUP BY agent`,
    )
    .all() as Row[]) {
    const s = get(String(r.agent))
    s.hookSessions = Number(r.hooks ?? 0)
    s.screenSessions = Number(r.screen ?? 0)
  }

  return new Map([...out].map(([agent, s]) => [agent, {agent, ...s}]))
}

/** Malformed hook payloads counted on the spool's pseudo file. */
export function spoolParseErrors(store: Store): number {
  return Number((store.q(`SELECT COALESCE(SUM(parse_errors), 0) AS n FROM files WHERE path = 'hooks://spool'`).get() as Row).n)
}
