/**
 * Shared parts of the reliability suite: a seeded random source (the seed is printed, and
 * CAST_TEST_SEED replays a run), a generator of realistic Claude Code transcripts, child
 * processes the suite can kill and always reaps, and direct reads of the SQLite file.
 */
import Database from 'better-sqlite3'
import {type ChildProcess, execFile, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {BIN, HOOK_BIN, type RunResult} from '../helpers/cli.js'

/** The suite's seed: CAST_TEST_SEED to replay a failure, else a fixed one. */
export const SEED = Number(process.env.CAST_TEST_SEED ?? 20_261_129)

export interface Random {
  next(): number
  int(lo: number, hi: number): number
  pick<T>(list: readonly T[]): T
  chance(p: number): boolean
  hex(n: number): string
  uuid(): string
  shuffle<T>(list: readonly T[]): T[]
}

/** mulberry32: small, fast and seeded. Same seed, same sequence. */
export function random(seed: number): Random {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }

  const hex = (n: number): string => {
    let s = ''
    while (s.length < n)
      s += Math.floor(next() * 0x1_0000_0000)
        .toString(16)
        .padStart(8, '0')
    return s.slice(0, n)
  }

  return {
    chance: (p) => next() < p,
    hex,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    next,
    pick: (list) => list[Math.floor(next() * list.length)]!,
    shuffle(list) {
      const out = [...list]
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j]!, out[i]!]
      }

      return out
    },
    uuid() {
      const h = hex(32)
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
    },
  }
}

const WORDS =
  'the parser test fails because offset of a line is read before its newline so we retry with the cache and index then build migrate schema table column query handler route token session stream buffer'.split(
    ' ',
  )
const CODE = [
  'export function readLines(fd: number, start: number): void {',
  '  const buf = Buffer.allocUnsafe(1 << 20)',
  '  for (const line of text.split("\\n")) total += line.length',
  '  if (!row) throw new Error(`missing ${id}`)',
  '}',
  "import {describe, expect, it} from 'vitest'",
  '    at Object.<anonymous> (/home/dev/src/api/test/parse.test.ts:42:17)',
  ' FAIL  test/parse.test.ts > parses a partial line',
]

function prose(r: Random, n: number): string {
  const out: string[] = []
  let len = 0
  while (len < n) {
    const w = r.pick(WORDS)
    out.push(w)
    len += w.length + 1
  }

  return out.join(' ')
}

function code(r: Random, n: number): string {
  const out: string[] = []
  let len = 0
  while (len < n) {
    const l = r.pick(CODE)
    out.push(l)
    len += l.length + 1
  }

  return out.join('\n')
}

export const CORPUS_NOW = Date.parse('2026-11-29T12:00:00.000Z')

export type SessionEnd = 'settled' | 'question' | 'tool' | 'error' | 'interrupt' | 'prompt'

export interface CorpusSession {
  readonly nativeId: string
  readonly path: string
  readonly end: SessionEnd
  readonly subagents: number
}

/**
 * Claude Code transcripts in their real layout and line shapes (agent-formats §1: permission-mode
 * and file-history-snapshot lines, a meta caveat, prompts as strings or text blocks, assistant
 * lines streamed one content block per line sharing message.id, tool_use / tool_result with
 * toolUseResult, system turn_duration and api_error lines, ai-title, subagent files with their
 * meta). About `bytes` bytes over `sessions` sessions, log-normal sizes.
 */
export function generateCorpus(
  home: string,
  opts: {sessions: number; bytes: number; seed: number; now?: number},
): {sessions: CorpusSession[]; bytes: number; files: number} {
  const r = random(opts.seed)
  const now = opts.now ?? CORPUS_NOW
  const base = path.join(home, '.claude', 'projects')
  const weights = Array.from({length: opts.sessions}, () =>
    Math.exp(1.2 * Math.sqrt(-2 * Math.log(r.next() || 1e-9)) * Math.cos(2 * Math.PI * r.next())),
  )
  const sum = weights.reduce((a, b) => a + b, 0)
  const ends: SessionEnd[] = ['settled', 'settled', 'settled', 'settled', 'question', 'tool', 'error', 'interrupt', 'prompt']
  const out: CorpusSession[] = []
  let bytes = 0
  let files = 0
  for (const w of weights) {
    const size = Math.max(1500, Math.round((w / sum) * opts.bytes))
    const sessionId = r.uuid()
    const cwd = `/home/dev/src/${r.pick(['api', 'web', 'cli', 'infra', 'docs'])}`
    const end = r.pick(ends)
    const subagents = size > 100_000 && r.chance(0.3) ? r.int(1, 2) : 0
    const s = claudeSession(r, {cwd, end, sessionId, size, start: now - r.int(60_000, 5 * 86_400_000), subagents})
    const dir = path.join(base, cwd.replace(/[^a-zA-Z0-9-]/g, '-'))
    const file = path.join(dir, `${sessionId}.jsonl`)
    writeLines(file, s.lines)
    bytes += s.bytes
    files++
    for (const sub of s.subagents) {
      const subDir = path.join(dir, sessionId, 'subagents')
      writeLines(path.join(subDir, `agent-${sub.agentId}.jsonl`), sub.lines)
      fs.writeFileSync(
        path.join(subDir, `agent-${sub.agentId}.meta.json`),
        JSON.stringify({agentType: 'general-purpose', description: 'Explore the codebase'}),
      )
      bytes += sub.lines.reduce((a, l) => a + l.length + 1, 0)
      files += 2
    }

    out.push({end, nativeId: sessionId, path: file, subagents: s.subagents.length})
  }

  return {bytes, files, sessions: out}
}

function writeLines(file: string, lines: readonly string[]): void {
  fs.mkdirSync(path.dirname(file), {recursive: true})
  fs.writeFileSync(file, lines.join('\n') + '\n')
}

function claudeSession(
  r: Random,
  o: {sessionId: string; cwd: string; start: number; size: number; end: SessionEnd; subagents: number},
): {lines: string[]; bytes: number; subagents: {agentId: string; lines: string[]}[]} {
  const lines: string[] = []
  let bytes = 0
  let t = o.start
  let parent: string | null = null
  const model = r.pick(['claude-opus-4-6', 'claude-sonnet-4-5-20250929'])
  const at = (lo: number, hi: number): string => {
    t += r.int(lo, hi)
    return new Date(t).toISOString()
  }

  const common = (): Record<string, unknown> => ({
    cwd: o.cwd,
    gitBranch: 'main',
    isSidechain: false,
    parentUuid: parent,
    sessionId: o.sessionId,
    userType: 'external',
    version: '2.1.180',
  })
  const push = (rec: Record<string, unknown>): void => {
    const s = JSON.stringify(rec)
    lines.push(s)
    bytes += s.length + 1
    if (typeof rec.uuid === 'string') parent = rec.uuid
  }

  const usage = (): Record<string, unknown> => ({
    cache_creation_input_tokens: r.int(0, 4000),
    cache_read_input_tokens: r.int(1000, 90_000),
    input_tokens: r.int(1, 30),
    output_tokens: r.int(5, 2500),
    service_tier: 'standard',
  })
  const assistant = (id: string, block: Record<string, unknown>, stop: string | null): void =>
    push({
      ...common(),
      message: {content: [block], id, model, role: 'assistant', stop_reason: stop, stop_sequence: null, type: 'message', usage: usage()},
      requestId: `req_011C${r.hex(16)}`,
      timestamp: at(200, 4000),
      type: 'assistant',
      uuid: r.uuid(),
    })
  const prompt = (text: string): void =>
    push({
      ...common(),
      message: {content: r.chance(0.5) ? text : [{text, type: 'text'}], role: 'user'},
      permissionMode: 'default',
      promptId: r.uuid(),
      timestamp: at(5000, 120_000),
      type: 'user',
      uuid: r.uuid(),
    })

  push({permissionMode: 'default', sessionId: o.sessionId, type: 'permission-mode'})
  push({
    isSnapshotUpdate: false,
    messageId: r.uuid(),
    snapshot: {messageId: r.uuid(), timestamp: new Date(t).toISOString(), trackedFileBackups: {}},
    type: 'file-history-snapshot',
  })
  push({
    ...common(),
    isMeta: true,
    message: {
      content:
        '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>',
      role: 'user',
    },
    timestamp: at(0, 10),
    type: 'user',
    uuid: r.uuid(),
  })
  const subagents: {agentId: string; lines: string[]}[] = []
  for (let turn = 1; ; turn++) {
    prompt(prose(r, r.int(20, 400)))
    for (let k = r.int(1, 5); k > 0; k--) {
      const id = `msg_01${r.hex(22)}`
      if (r.chance(0.5)) assistant(id, {signature: r.hex(120), thinking: prose(r, r.int(100, 1500)), type: 'thinking'}, null)
      if (r.chance(0.7)) assistant(id, {text: prose(r, r.int(40, 400)), type: 'text'}, null)
      if (r.chance(0.03))
        push({
          ...common(),
          error: {status: 529, type: 'overloaded_error'},
          level: 'error',
          maxRetries: 10,
          retryAttempt: 1,
          retryInMs: 612.5,
          subtype: 'api_error',
          timestamp: at(100, 900),
          type: 'system',
          uuid: r.uuid(),
        })
      const toolId = `toolu_01${r.hex(22)}`
      const task = subagents.length < o.subagents && r.chance(0.3)
      const name = task ? 'Task' : r.pick(['Read', 'Bash', 'Edit', 'Grep'])
      const input =
        name === 'Task'
          ? {description: 'Explore the codebase', prompt: prose(r, 200), subagent_type: 'general-purpose'}
          : name === 'Bash'
            ? {command: 'npm test', description: 'Run the tests'}
            : {file_path: `${o.cwd}/src/${r.pick(WORDS)}.ts`}
      assistant(id, {id: toolId, input, name, type: 'tool_use'}, 'tool_use')
      const big = Math.min(r.chance(0.15) ? r.int(20_000, 100_000) : r.int(200, 5000), Math.max(200, Math.floor(o.size / 3)))
      const content = name === 'Task' ? [{text: prose(r, 400), type: 'text'}] : code(r, big)
      const agentId = r.hex(16)
      if (task) subagents.push({agentId, lines: subagentLines(r, o, agentId, t, model)})
      const toolUseResult =
        name === 'Task'
          ? {agentId, content, status: 'completed', totalDurationMs: r.int(5000, 90_000)}
          : name === 'Bash'
            ? {interrupted: false, isImage: false, stderr: '', stdout: content}
            : {durationMs: r.int(1, 80), filenames: []}
      push({
        ...common(),
        message: {content: [{content, tool_use_id: toolId, type: 'tool_result'}], role: 'user'},
        sourceToolAssistantUUID: parent,
        timestamp: at(50, 20_000),
        toolUseResult,
        type: 'user',
        uuid: r.uuid(),
      })
    }

    const last = bytes >= o.size * 0.85
    if (last && o.end !== 'settled') {
      const id = `msg_01${r.hex(22)}`
      if (o.end === 'question') {
        assistant(
          id,
          {
            id: `toolu_01${r.hex(22)}`,
            input: {
              questions: [
                {
                  header: 'Approach',
                  multiSelect: false,
                  options: [
                    {description: 'small', label: 'A'},
                    {description: 'large', label: 'B'},
                  ],
                  question: 'Which approach should I take?',
                },
              ],
            },
            name: 'AskUserQuestion',
            type: 'tool_use',
          },
          'tool_use',
        )
      } else if (o.end === 'tool') {
        assistant(
          id,
          {id: `toolu_01${r.hex(22)}`, input: {command: 'npm run build', description: 'Build'}, name: 'Bash', type: 'tool_use'},
          'tool_use',
        )
      } else if (o.end === 'error') {
        push({
          ...common(),
          apiErrorStatus: 429,
          error: 'rate_limit',
          isApiErrorMessage: true,
          message: {
            content: [{text: "You've hit your limit · resets 6pm (UTC)", type: 'text'}],
            id: r.uuid(),
            model: '<synthetic>',
            role: 'assistant',
            stop_reason: 'stop_sequence',
            stop_sequence: '',
            type: 'message',
            usage: {input_tokens: 0, output_tokens: 0},
          },
          requestId: `req_011C${r.hex(16)}`,
          timestamp: at(100, 2000),
          type: 'assistant',
          uuid: r.uuid(),
        })
      } else if (o.end === 'interrupt') {
        push({
          ...common(),
          message: {content: [{text: '[Request interrupted by user]', type: 'text'}], role: 'user'},
          timestamp: at(100, 5000),
          type: 'user',
          uuid: r.uuid(),
        })
      } else {
        prompt(prose(r, r.int(20, 200)))
      }

      break
    }

    assistant(`msg_01${r.hex(22)}`, {text: prose(r, r.int(80, 1000)), type: 'text'}, 'end_turn')
    push({
      ...common(),
      durationMs: r.int(3000, 600_000),
      isMeta: false,
      messageCount: 4,
      subtype: 'turn_duration',
      timestamp: at(10, 200),
      type: 'system',
      uuid: r.uuid(),
    })
    if (turn === 1) push({aiTitle: prose(r, r.int(20, 50)), sessionId: o.sessionId, type: 'ai-title'})
    if (last) break
  }

  return {bytes, lines, subagents}
}

function subagentLines(r: Random, o: {sessionId: string; cwd: string}, agentId: string, start: number, model: string): string[] {
  const lines: string[] = []
  let parent: string | null = null
  let t = start
  const rec = (x: Record<string, unknown>): void => {
    const uuid = r.uuid()
    lines.push(
      JSON.stringify({
        agentId,
        cwd: o.cwd,
        gitBranch: 'main',
        isSidechain: true,
        parentUuid: parent,
        sessionId: o.sessionId,
        timestamp: new Date((t += r.int(200, 3000))).toISOString(),
        userType: 'external',
        uuid,
        version: '2.1.180',
        ...x,
      }),
    )
    parent = uuid
  }

  rec({message: {content: prose(r, 200), role: 'user'}, type: 'user'})
  for (let k = r.int(1, 3); k > 0; k--) {
    const tid = `toolu_01${r.hex(22)}`
    rec({
      message: {
        content: [{id: tid, input: {pattern: r.pick(WORDS)}, name: 'Grep', type: 'tool_use'}],
        id: `msg_01${r.hex(22)}`,
        model,
        role: 'assistant',
        stop_reason: 'tool_use',
        type: 'message',
      },
      type: 'assistant',
    })
    rec({message: {content: [{content: code(r, r.int(200, 4000)), tool_use_id: tid, type: 'tool_result'}], role: 'user'}, type: 'user'})
  }

  rec({
    message: {
      content: [{text: prose(r, 300), type: 'text'}],
      id: `msg_01${r.hex(22)}`,
      model,
      role: 'assistant',
      stop_reason: 'end_turn',
      type: 'message',
    },
    type: 'assistant',
  })
  return lines
}

// ------------------------------------------------------------------ processes

const children = new Set<ChildProcess>()

/** Start the built CLI; the child is reaped by killChildren() if the test does not wait for it. */
export function spawnCast(
  args: readonly string[],
  env: Record<string, string>,
): ChildProcess & {done: Promise<RunResult & {signal: NodeJS.Signals | null}>} {
  const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c) => (stdout += String(c)))
  child.stderr!.on('data', (c) => (stderr += String(c)))
  const done = new Promise<RunResult & {signal: NodeJS.Signals | null}>((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child)
      resolve({code: code ?? -1, signal, stderr, stdout})
    })
  })
  return Object.assign(child, {done})
}

/** SIGKILL every child the suite started and did not see exit (afterEach/afterAll). */
export async function killChildren(): Promise<void> {
  const waits: Promise<unknown>[] = []
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      waits.push(new Promise((resolve) => c.once('close', resolve)))
      c.kill('SIGKILL')
    }
  }

  children.clear()
  await Promise.all(waits)
}

/** Fire the hook command as an agent does: the payload on stdin. */
export function fireHook(agent: string, payload: string, env: Record<string, string>, viaArgument = false): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(HOOK_BIN, viaArgument ? [agent, payload] : [agent], {env, timeout: 10_000}, (error, stdout, stderr) => {
      const code = error ? (typeof (error as {code?: unknown}).code === 'number' ? (error as {code: number}).code : 1) : 0
      resolve({code, stderr, stdout})
    })
    if (viaArgument) child.stdin?.end()
    else child.stdin?.end(payload)
  })
}

// ------------------------------------------------------------------ the store, read directly

export function openDb(castHome: string): Database.Database {
  return new Database(path.join(castHome, 'cast.db'), {fileMustExist: true, readonly: true})
}

export function withDb<T>(castHome: string, fn: (db: Database.Database) => T): T {
  const db = openDb(castHome)
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

export interface TransitionRow {
  seq: number
  session_id: string
  event: string
  from_state: string | null
  to_state: string
  reason: string
  bucket: string
  from_bucket: string | null
}

/**
 * Every way the transitions log can be wrong: seq not strictly increasing, a session whose first
 * row is not its 'new' row (or a second 'new'), a row whose `from` is not the previous row's `to`,
 * and a row that repeats the previous (to, reason, bucket): a change logged twice. Also checks
 * that each session's last row matches the state it is in. Returns the problems found (empty: sound).
 */
export function transitionsProblems(db: Database.Database): string[] {
  const problems: string[] = []
  const rows = db.prepare('SELECT * FROM transitions ORDER BY rowid').all() as TransitionRow[]
  let prevSeq = 0
  const last = new Map<string, TransitionRow>()
  for (const row of rows) {
    if (row.seq <= prevSeq) problems.push(`seq ${row.seq} after ${prevSeq}`)
    prevSeq = row.seq
    const prev = last.get(row.session_id)
    const id = row.session_id.slice(0, 7)
    if (!prev) {
      if (row.event !== 'new' || row.from_state !== null)
        problems.push(`${id}: first row (seq ${row.seq}) is ${row.event} from ${row.from_state}, not new`)
    } else {
      if (row.event === 'new') problems.push(`${id}: a second 'new' at seq ${row.seq}`)
      if (row.from_state !== prev.to_state)
        problems.push(`${id}: seq ${row.seq} from ${row.from_state} but seq ${prev.seq} went to ${prev.to_state}`)
      if (row.from_bucket !== prev.bucket)
        problems.push(`${id}: seq ${row.seq} from bucket ${row.from_bucket} but seq ${prev.seq} went to ${prev.bucket}`)
      if (row.to_state === prev.to_state && row.reason === prev.reason && row.bucket === prev.bucket) {
        problems.push(`${id}: seq ${row.seq} repeats seq ${prev.seq} (${row.to_state}/${row.reason}/${row.bucket})`)
      }
    }

    last.set(row.session_id, row)
  }

  const sessions = db.prepare('SELECT id, state, reason, bucket FROM sessions').all() as {
    id: string
    state: string | null
    reason: string | null
    bucket: string | null
  }[]
  for (const s of sessions) {
    const l = last.get(s.id)
    if (!l) {
      if (s.state !== null) problems.push(`${s.id.slice(0, 7)}: state ${s.state} but no transitions row`)
      continue
    }

    if (l.to_state !== s.state || l.reason !== s.reason || l.bucket !== s.bucket) {
      problems.push(
        `${s.id.slice(0, 7)}: is ${s.state}/${s.reason}/${s.bucket} but its last row says ${l.to_state}/${l.reason}/${l.bucket}`,
      )
    }
  }

  return problems
}

/** A temp dir the suite removes itself; chmod back first in case a test left it read-only. */
export function removeTree(dir: string): void {
  try {
    fs.chmodSync(dir, 0o700)
  } catch {
    // gone
  }

  fs.rmSync(dir, {force: true, recursive: true})
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
