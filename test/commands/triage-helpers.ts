/**
 * Shared by the triage tests: Claude Code sessions on disk, cast run as one identity or another
 * at a chosen CAST_NOW, and a real process group standing in for a live agent.
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {claudeLines, claudeTranscriptPath, json, runCast, type RunResult, type TempHome, writeFile} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

export const ME = 'me@example.com'
export const ANA = 'ana@example.com'
/** The transcripts' time; commands run a minute later unless told otherwise. */
export const T0 = Date.parse('2026-11-29T21:00:00.000Z')
export const MIN = 60_000
export const HOUR = 60 * MIN

export const sid = (n: number): string => `7a1a0000-0000-4000-8000-${String(n).padStart(12, '0')}`

export interface SessionSpec {
  readonly n: number
  readonly cwd: string
  readonly prompt?: string
  readonly question?: string
  readonly at?: number
}

/** A Claude Code session on disk: settled (needs_input:settled), or asking a question. */
export function writeSession(h: TempHome, s: SessionSpec): string {
  const id = sid(s.n)
  const text = claudeLines({at: new Date(s.at ?? T0), cwd: s.cwd, prompt: s.prompt ?? `task ${s.n}`, question: s.question, sessionId: id})
  writeFile(claudeTranscriptPath(h.home, s.cwd, id), text)
  return id
}

/** Append a question to a session's transcript (a new ask, after whatever was done to it). */
export function appendQuestion(h: TempHome, s: SessionSpec, question: string, at: number): void {
  const id = sid(s.n)
  const line = {
    cwd: s.cwd,
    isSidechain: false,
    message: {
      content: [{id: 'toolu_q9', input: {questions: [{question}]}, name: 'AskUserQuestion', type: 'tool_use'}],
      id: 'msg_9',
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      type: 'message',
    },
    parentUuid: 'a1',
    sessionId: id,
    timestamp: new Date(at).toISOString(),
    type: 'assistant',
    userType: 'external',
    uuid: 'a9',
    version: '2.1.100',
  }
  fs.appendFileSync(claudeTranscriptPath(h.home, s.cwd, id), JSON.stringify(line) + '\n')
}

export interface RunOptions {
  readonly user?: string
  /** CAST_NOW (epoch ms); default T0 + 1 minute. */
  readonly now?: number
  readonly cwd?: string
}

/** `cast ARGS` as one identity at a chosen CAST_NOW, run in the test process (test/helpers/run-command.ts). */
export function cast(h: TempHome, args: readonly string[], o: RunOptions = {}): Promise<RunResult> {
  return runCommand(args, {cwd: o.cwd, env: castEnv(h, o)})
}

/** The same as a separate cast process: for runs that must really happen at the same moment. */
export function castSpawned(h: TempHome, args: readonly string[], o: RunOptions = {}): Promise<RunResult> {
  return runCast(args, {cwd: o.cwd, env: castEnv(h, o)})
}

function castEnv(h: TempHome, o: RunOptions): Record<string, string> {
  return {...h.env, CAST_NOW: String(o.now ?? T0 + MIN), CAST_USER: o.user ?? ME}
}

export interface Row {
  id: string
  short_id: string
  native_id: string
  state: string
  reason: string
  bucket: string
  filing: string | null
  pinned: boolean
  labels: string[]
  owners: string[]
  runner: string | null
  title: string | null
  live: boolean
  pid: number | null
  snoozed_until: string | null
}

/** `cast sessions --all --json` as one identity: every row of their inbox, filed ones included. */
export async function rows(h: TempHome, o: RunOptions = {}, extra: readonly string[] = []): Promise<Row[]> {
  const r = await cast(h, ['sessions', '--all', '--json', ...extra], o)
  if (r.code !== 0) throw new Error(`cast sessions exited ${r.code}: ${r.stderr}`)
  return json(r).sessions as Row[]
}

export async function row(h: TempHome, n: number, o: RunOptions = {}): Promise<Row | undefined> {
  return (await rows(h, o)).find((r) => r.native_id === sid(n))
}

/** The state a row reads, as `state:reason [bucket]`. */
export const where = (r: Row | undefined): string => (r ? `${r.state}:${r.reason} [${r.bucket}]` : 'absent')

// ---------------------------------------------------------------- a live agent stand-in

function statOf(pid: number): {state: string; pgrp: number; start: number} | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return {pgrp: Number(rest[2]), start: Number(rest[19]), state: rest[0] ?? '?'}
  } catch {
    return null
  }
}

/** Epoch ms the process started, from /proc (what Claude Code writes as startedAt). */
export function startedAtOf(pid: number): number {
  const boot = Number(/^btime (\d+)/m.exec(fs.readFileSync('/proc/stat', 'utf8'))![1]) * 1000
  return boot + statOf(pid)!.start * 10
}

/** Members of a process group still running (zombies do not count). */
export function groupMembers(pgid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      const s = statOf(p)
      return s !== null && s.pgrp === pgid && s.state !== 'Z' && s.state !== 'X'
    })
}

/**
 * A detached process group like an agent's: `sh` with two children. `ignoreTerm` makes every
 * member ignore SIGTERM, so only the SIGKILL after the grace stops it.
 */
export async function spawnGroup(ignoreTerm = false): Promise<number> {
  const script = ignoreTerm ? `trap '' TERM; sleep 300 & sleep 300 & wait` : 'sleep 300 & sleep 300'
  const child = spawn('sh', ['-c', script], {detached: true, stdio: 'ignore'})
  child.unref()
  const pid = child.pid!
  for (let i = 0; i < 100 && groupMembers(pid).length < 3; i++) await new Promise((r) => setTimeout(r, 20))
  return pid
}

/** Claude Code's registry entry naming `pid` as the live process of session `n`. */
export function writeRegistry(h: TempHome, pid: number, n: number, cwd: string, fields: Record<string, unknown> = {status: 'busy'}): void {
  writeFile(
    path.join(h.home, '.claude', 'sessions', `${pid}.json`),
    JSON.stringify({cwd, pid, sessionId: sid(n), startedAt: startedAtOf(pid), ...fields}),
  )
}

export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch {
    // already gone
  }
}
