/**
 * The settle classifier runner (docs/contract.md §3.4 rule 7). When the config names a command
 * (`settle_classifier: {command: [...], timeout: "20s"}`), every settled turn that ended with no
 * declaration (state needs_input, reason settled) is judged once: the command gets one JSON
 * object on stdin and answers `{"verdict":"delivered"|"needs_input"|"blocked","why":"…"}` on
 * stdout. A delivered verdict sets the records' delivered turn, so rule 7 reads done/delivered;
 * the other verdicts change nothing. Every outcome (a failure and a timeout included) is a row
 * in settle_verdicts, so a turn is never judged twice and `cast explain` can show it.
 *
 * Off the ingest path: the ingester only pokes the runner after a pass; the runner spawns the
 * command asynchronously, at most `concurrency` at a time, and writes one small transaction per
 * verdict.
 */
import {spawn} from 'node:child_process'

import {getSettleVerdict, putSettleVerdict, SETTLE_VERDICTS, type SettleVerdict} from '../store/settle-verdicts.js'
import type {SessionRow, Store} from '../store/store.js'

export interface SettleClassifierConfig {
  readonly command: readonly string[]
  readonly timeoutMs: number
}

/** What the classifier reads on stdin. */
export interface SettleInput {
  readonly agent: string
  readonly session_id: string
  readonly native_id: string
  readonly cwd: string | null
  readonly title: string | null
  readonly turn_index: number
  readonly prompt: string | null
  readonly last_assistant_message: string | null
  readonly tools: readonly string[]
}

export interface SettleOutcome {
  readonly verdict: SettleVerdict | null
  readonly why: string | null
  readonly error: string | null
  readonly ms: number
}

export const DEFAULT_SETTLE_TIMEOUT_MS = 20_000
const MAX_OUTPUT = 64 * 1024

export function settleInputOf(row: SessionRow): SettleInput {
  const f = row.facts
  return {
    agent: row.agent,
    cwd: f.cwd,
    last_assistant_message: f.lastAssistantText,
    native_id: row.nativeId,
    prompt: f.lastPromptText ?? null,
    session_id: row.id,
    title: f.title,
    tools: [...(f.turnTools ?? [])],
    turn_index: f.turnIndex,
  }
}

/** Read the command's answer: one JSON object (the last JSON line wins when it prints several). */
export function parseSettleAnswer(stdout: string): {verdict: SettleVerdict; why: string | null} | {error: string} {
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
  const candidates = [stdout.trim(), ...lines.reverse()]
  for (const c of candidates) {
    let v: unknown
    try {
      v = JSON.parse(c)
    } catch {
      continue
    }

    if (typeof v !== 'object' || v === null) continue
    const verdict = (v as Record<string, unknown>)['verdict']
    const why = (v as Record<string, unknown>)['why']
    if (typeof verdict === 'string' && (SETTLE_VERDICTS as readonly string[]).includes(verdict)) {
      return {verdict: verdict as SettleVerdict, why: typeof why === 'string' ? why.slice(0, 1000) : null}
    }

    return {error: `answered verdict ${JSON.stringify(verdict)}; expected one of ${SETTLE_VERDICTS.join(', ')}`}
  }

  return {error: stdout.trim() === '' ? 'printed nothing' : `printed no JSON verdict: ${JSON.stringify(stdout.trim().slice(0, 120))}`}
}

/** Run the command once on one input. Never throws: a failure is an outcome with an error. */
export function runSettleClassifier(config: SettleClassifierConfig, input: SettleInput, env: NodeJS.ProcessEnv): Promise<SettleOutcome> {
  const t0 = Date.now()
  return new Promise((resolve) => {
    let done = false
    let out = ''
    let err = ''
    const finish = (o: Omit<SettleOutcome, 'ms'>): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve({...o, ms: Date.now() - t0})
    }

    let child: ReturnType<typeof spawn>
    try {
      child = spawn(config.command[0]!, config.command.slice(1), {detached: true, env, stdio: ['pipe', 'pipe', 'pipe']})
    } catch (error) {
      finish({error: `could not start: ${(error as Error).message}`, verdict: null, why: null})
      return
    }

    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }

      finish({error: `timed out after ${Math.round(config.timeoutMs / 100) / 10}s`, verdict: null, why: null})
    }, config.timeoutMs)
    timer.unref()
    child.stdout!.on('data', (d: Buffer) => {
      if (out.length < MAX_OUTPUT) out += d.toString('utf8')
    })
    child.stderr!.on('data', (d: Buffer) => {
      if (err.length < MAX_OUTPUT) err += d.toString('utf8')
    })
    child.on('error', (e) => finish({error: `could not start: ${e.message}`, verdict: null, why: null}))
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const first = err.trim().split('\n')[0]?.slice(0, 200) ?? ''
        finish({error: `exited ${code ?? signal}${first ? `: ${first}` : ''}`, verdict: null, why: null})
        return
      }

      const a = parseSettleAnswer(out)
      finish('error' in a ? {error: a.error, verdict: null, why: null} : {error: null, verdict: a.verdict, why: a.why})
    })
    child.stdin!.on('error', () => {
      /* a classifier that does not read its input */
    })
    child.stdin!.end(JSON.stringify(input) + '\n')
  })
}

export interface SettleRunnerOptions {
  readonly config: SettleClassifierConfig
  readonly clock: () => number
  readonly env: NodeJS.ProcessEnv
  readonly concurrency?: number
  readonly log?: (msg: string) => void
}

/** Judges settled, undeclared turns as the ingester reports passes. */
export class SettleRunner {
  private readonly running = new Set<string>()
  private readonly queue: string[] = []
  private timer: NodeJS.Timeout | null = null
  private stopped = false
  private onWrite: (() => void) | null = null
  private readonly inflight = new Set<Promise<void>>()

  constructor(
    private readonly store: Store,
    private readonly opts: SettleRunnerOptions,
  ) {}

  /** After an ingest pass: look for turns to judge (coalesced). `onWrite` runs after a verdict changed a session. */
  poke(onWrite?: () => void): void {
    if (onWrite) this.onWrite = onWrite
    if (this.stopped || this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      try {
        this.scan()
      } catch (error) {
        this.opts.log?.(`settle classifier: ${(error as Error).message}`)
      }
    }, 100)
    this.timer.unref()
  }

  /** Judge every turn waiting now and resolve once each verdict is recorded (one pass of `cast daemon --once`). */
  async drainNow(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.scan()
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight])
  }

  private scan(): void {
    const ids = this.store.q("SELECT id FROM sessions WHERE state = 'needs_input' AND reason = 'settled'").all() as {id: string}[]
    for (const {id} of ids) {
      if (this.running.has(id) || this.queue.includes(id)) continue
      this.queue.push(id)
    }

    this.drain()
  }

  private drain(): void {
    const max = this.opts.concurrency ?? 2
    while (!this.stopped && this.running.size < max && this.queue.length > 0) {
      const id = this.queue.shift()!
      const row = this.store.loadSessions([id])[0]
      if (!row || row.state !== 'needs_input' || row.reason !== 'settled' || row.parentId !== null) continue
      const turn = row.facts.turnIndex
      // A turn can read settled (registry, screen) before its last message reaches the transcript:
      // judge it once the message is there (the pass that reads it pokes again).
      if (row.facts.lastAssistantText === null) continue
      if (getSettleVerdict(this.store, id, turn) !== null) continue
      this.running.add(id)
      const p = runSettleClassifier(this.opts.config, settleInputOf(row), this.opts.env).then((o) => {
        this.running.delete(id)
        if (!this.stopped) this.record(id, turn, o)
        this.drain()
      })
      this.inflight.add(p)
      void p.finally(() => this.inflight.delete(p))
    }
  }

  private record(id: string, turn: number, o: SettleOutcome): void {
    const now = this.opts.clock()
    let changed = false
    try {
      this.store.tx(() => {
        if (
          !putSettleVerdict(this.store, {at: now, error: o.error, ms: o.ms, sessionId: id, turnIndex: turn, verdict: o.verdict, why: o.why})
        )
          return
        // Only while the same turn still rests undeclared: a new turn or a declaration outranks it.
        const row = this.store.loadSessions([id])[0]
        if (o.verdict === 'delivered' && row && row.facts.turnIndex === turn) {
          this.store.patchRecords(id, {deliveredTurn: turn})
          changed = this.store.reconcile(now, [id]).transitions > 0
        }
      })
    } catch (error) {
      this.opts.log?.(`settle classifier: ${(error as Error).message}`)
      return
    }

    if (o.error) this.opts.log?.(`settle classifier for ${id} turn ${turn}: ${o.error}`)
    if (changed) this.onWrite?.()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await Promise.race([Promise.allSettled([...this.inflight]), new Promise((r) => setTimeout(r, 1000).unref())])
  }
}
