import {Args, Flags} from '@oclif/core'

import {shortId} from '../core/model/ids.js'
import type {Store} from '../core/store/store.js'
import {families, type Reservation} from '../core/store/families.js'
import type {SessionJson} from '../lib/views/json-shapes.js'
import {presetIdExample, spawnableAgents, spawnEnvironment} from '../lib/agents/agent-commands.js'
import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'

/** Variables a spawned agent inherits from cast even when the tmux server was started elsewhere (and those the agents honour). */
const PASS_THROUGH = [...new Set(['CAST_HOME', 'CAST_USER', 'HOME', 'PATH', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', ...spawnEnvironment()])]

/** The agents spawn can start (the registry's), named by their binaries: the first for the examples. */
const SPAWNABLE = spawnableAgents()
const FIRST = SPAWNABLE[0] ?? 'AGENT'
const PRESET = presetIdExample()

export default class Spawn extends BaseCommand {
  static override args = {
    prompt: Args.string({description: 'The task: the agent\'s first prompt. "-" reads it from stdin.', required: true}),
  }
  static override description = `Starts an agent on a task in a new tmux window (inside tmux: the current session; else a detached session named "cast"), or with --headless as a background process whose output goes to $CAST_HOME/runs/. Waits until the session appears in cast's store and prints its id; with --json, the session object.

Where the agent lets cast choose its session id${PRESET ? ` (${PRESET})` : ''}, the id is fixed up front and the agent gets CAST_SESSION, so its own "cast state" needs no flag. The command run for each agent comes from the config ("agents": {"${FIRST}": {"interactive": [...], "headless": [...]}}, with {prompt}, {id}, {cwd}); the defaults are the agents' own CLIs.

--label files the session under your label L from its first transition on, so "cast sessions -w --json --label L" follows it. --parent makes it a subagent of SESSION (folded under it in the inbox): a tree is at most 3 levels deep below its root and holds at most 5 spawned sessions, finished ones included; past either cap spawn refuses with exit 5.`
  static override examples = [
    `<%= config.bin %> <%= command.id %> --agent ${FIRST} --label fleet "Fix the flaky auth test"`,
    {
      command: `id=$(<%= config.bin %> <%= command.id %> --agent ${FIRST} --label fleet --json "Write the migration" | jq -r .id)`,
      description: 'Keep the id for send and wait.',
    },
    {
      command: `<%= config.bin %> <%= command.id %> --agent ${FIRST} --headless "Summarise the open TODOs"`,
      description: 'No terminal: a background run.',
    },
    {
      command: `<%= config.bin %> <%= command.id %> --agent ${FIRST} --parent kdsmarj "Check the docs build"`,
      description: 'A subagent of session kdsmarj.',
    },
  ]
  static override flags = {
    agent: Flags.option({options: SPAWNABLE, required: true, summary: 'Which agent CLI to start.'})(),
    cwd: Flags.string({helpValue: 'DIR', summary: 'Working directory (default: the current one).'}),
    headless: Flags.boolean({summary: 'No terminal: run in the background, output in $CAST_HOME/runs/.'}),
    label: Flags.string({helpValue: 'L', summary: 'File the new session under your label L.'}),
    parent: Flags.string({helpValue: 'SESSION', summary: 'Spawn as a subagent of SESSION (tree caps apply).'}),
    timeout: Flags.string({default: '60s', helpValue: 'D', summary: 'How long to wait for the session to appear (exit 124 after).'}),
  }
  static override summary = 'Start an agent on a task and print its session id.'

  async run(): Promise<SessionJson> {
    const {args, flags} = await this.parse(Spawn)
    const {randomUUID} = await import('node:crypto')
    const {castId} = await import('../core/model/ids.js')
    const {fillTemplate, takesPresetId} = await import('../lib/agents/agent-commands.js')
    const {agent, cwd, prompt, template, timeoutMs} = await this.prepare(args.prompt, flags)
    const store = await this.openStore()
    const clock = this.clock()
    const {syncBeforeRead} = await import('../lib/ingest/ingest.js')
    const {resolveSession} = await import('../lib/base/resolve.js')
    const {dropSpawn, linkSpawn, MAX_TREE_DEPTH, MAX_TREE_SIZE, reserveSpawn, setSpawnTarget} = await families.spawns()
    syncBeforeRead(store, this.env, clock, this.me)
    const parentId = flags.parent === undefined ? null : resolveSession(store, flags.parent)
    const nativeId = takesPresetId(template) ? randomUUID() : null
    const childId = nativeId === null ? null : castId(agent, nativeId)
    const reservation = reserveSpawn(store, {
      agent,
      cwd,
      label: flags.label ?? null,
      mode: flags.headless ? 'headless' : 'tmux',
      parentId,
      prompt,
      sessionId: childId,
      spawnedAt: clock(),
      spawnedBy: this.me,
    })
    if (reservation.kind !== 'ok') this.refuse(reservation, parentId, {MAX_TREE_DEPTH, MAX_TREE_SIZE})

    const spawn = reservation.spawn
    const known = new Set(store.sessionIds().map((s) => s.id))
    const argv = fillTemplate(template, {cwd, id: nativeId ?? undefined, prompt})
    const vars: Record<string, string> = {}
    for (const k of PASS_THROUGH) if (this.env[k]) vars[k] = this.env[k]!
    // The child's own id, or none: never the CAST_SESSION of whoever ran spawn (an agent spawning
    // workers has its own), or the child would act for its parent.
    vars.CAST_SESSION = childId ?? ''

    const started = {agentName: flags.agent, childId, cwd, headless: flags.headless, label: flags.label, vars}
    const {pid, stillRunning, target} = await this.start(store, spawn.id, argv, started)
    setSpawnTarget(store, spawn.id, target, pid)
    const found = await this.waitForSession(store, clock, {agent, childId, cwd, known, pid, stillRunning, timeoutMs})
    if (found === null) {
      if (!(await stillRunning())) {
        dropSpawn(store, spawn.id)
        this.fail(
          `${flags.agent} exited before its session appeared (${target}).`,
          EXIT.FAILURE,
          flags.headless ? [`Its output: ${target}`] : [],
        )
      }

      this.fail(
        `${flags.agent} started (${target}) but its session did not appear within ${flags.timeout}.`,
        EXIT.TIMEOUT,
        childId ? [`Its id will be ${childId}; follow it with: cast wait ${shortId(childId)} --until needs_input,done`] : [],
      )
    }

    linkSpawn(store, spawn.id, found, clock())
    const {sessionJson} = await import('../lib/views/views.js')
    const row = store.loadSessions([found])[0]!
    const json = sessionJson(row, this.me, clock())
    if (!this.jsonEnabled()) {
      const bits = [row.agent, target, flags.label ? `label ${flags.label}` : null, parentId ? `child of ${shortId(parentId)}` : null]
      this.log(json.id)
      process.stderr.write(`cast: spawned ${json.short_id} (${bits.filter(Boolean).join(', ')}); now ${row.state}:${row.reason}\n`)
    }

    return json
  }

  /** Poll the store (syncing when no ingester runs) until the new session is there. */
  private async waitForSession(
    store: import('../core/store/store.js').Store,
    clock: () => number,
    w: {
      agent: string
      childId: string | null
      cwd: string
      known: Set<string>
      pid: number | null
      stillRunning: () => Promise<boolean>
      timeoutMs: number
    },
  ): Promise<string | null> {
    const {syncBeforeRead} = await import('../lib/ingest/ingest.js')
    const {parentPid} = await import('../core/ingest/process-table.js')
    const deadline = performance.now() + w.timeoutMs
    let graceEnd: number | undefined
    let alive = true
    for (;;) {
      syncBeforeRead(store, this.env, clock, this.me)
      if (w.childId !== null) {
        if (store.sessionIds().some((s) => s.id === w.childId)) {
          // Its process may show before the agent writes the prompt it was given: wait for that
          // line (3 s at most), so the session printed has its title.
          const row = store.loadSessions([w.childId])[0]
          graceEnd ??= performance.now() + 3000
          if ((row?.facts.messages ?? 0) > 0 || performance.now() > graceEnd) return w.childId
        }
      } else {
        // No preassigned id: a new session of this agent in this directory, preferably one whose
        // process descends from the one we started (two spawns in one directory at once).
        const fresh = store
          .loadSessions(
            store
              .sessionIds()
              .filter((s) => s.agent === w.agent && !w.known.has(s.id))
              .map((s) => s.id),
          )
          .filter((r) => r.facts.cwd === w.cwd)
          .sort((a, b) => b.firstSeenAt - a.firstSeenAt)
        const ours = fresh.find((r) => r.facts.process !== null && w.pid !== null && descendsFrom(r.facts.process.pid, w.pid, parentPid))
        const unclaimed = fresh.find((r) => r.facts.process === null || !r.facts.process.alive)
        if (ours ?? unclaimed) return (ours ?? unclaimed)!.id
      }

      // One more look after the process is gone: a quick run may have finished before a sync saw it.
      if (!alive || performance.now() > deadline) return null
      await new Promise((resolve) => setTimeout(resolve, 200))
      alive = await w.stillRunning()
    }
  }

  /** The prompt (or stdin for `-`), the folder, the agent and its command template: each bad one is a usage error. */
  private async prepare(
    promptArg: string,
    flags: {agent: string; cwd?: string; headless: boolean; timeout: string},
  ): Promise<{agent: string; cwd: string; prompt: string; template: readonly string[]; timeoutMs: number}> {
    const fs = await import('node:fs')
    const path = await import('node:path')
    const {parseDuration} = await import('../core/model/durations.js')
    const {agentFromName, commandTemplate} = await import('../lib/agents/agent-commands.js')
    const {loadConfig} = await import('../lib/home/config.js')
    const timeoutMs = parseDuration(flags.timeout)
    if (timeoutMs === null) this.fail(`--timeout "${flags.timeout}" is not a duration (try 30s, 2m).`, EXIT.USAGE)
    let prompt = promptArg
    if (prompt === '-') {
      const {readStdin} = await import('../lib/cli/stdin.js')
      prompt = (await readStdin()).replace(/\n+$/, '')
    }

    if (prompt.trim() === '') this.fail('The prompt is empty.', EXIT.USAGE)
    const cwd = path.resolve(flags.cwd ?? process.cwd())
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) this.fail(`--cwd ${cwd} is not a directory.`, EXIT.USAGE)
    const agent = agentFromName(flags.agent)!
    const config = await loadConfig(this.env)
    const kind = flags.headless ? 'headless' : 'interactive'
    const template = commandTemplate(agent, kind, config)
    if (template === null)
      this.fail(`No ${kind} command for ${agent}: set "agents": {"${flags.agent}": {"${kind}": [...]}} in ${config.file}.`, EXIT.USAGE)

    return {agent, cwd, prompt, template, timeoutMs}
  }

  /** A spawn tree too deep or too full: exit 5 with what to do instead. */
  private refuse(
    r: Exclude<Reservation, {kind: 'ok'}>,
    parentId: string | null,
    caps: {MAX_TREE_DEPTH: number; MAX_TREE_SIZE: number},
  ): never {
    const {MAX_TREE_DEPTH, MAX_TREE_SIZE} = caps
    if (r.kind === 'too_deep') {
      this.fail(
        `Refused: a child of ${shortId(parentId!)} would sit at depth ${r.depth}; a spawn tree is at most ${MAX_TREE_DEPTH} levels deep below its root.`,
        EXIT.REFUSED,
        ['Send the task to an existing session instead: cast send SESSION "…"'],
      )
    }

    this.fail(
      `Refused: the tree under ${shortId(r.rootId)} already holds ${r.size} spawned sessions (finished ones count); the cap is ${MAX_TREE_SIZE}.`,
      EXIT.REFUSED,
      ['A finished child takes follow-ups: cast send CHILD "…" instead of spawning a new one.'],
    )
  }

  /** Start the agent (headless, or in a tmux window); a failure drops the reservation and exits 1. */
  private async start(
    store: Store,
    spawnId: string,
    argv: string[],
    o: {agentName: string; childId: string | null; cwd: string; headless: boolean; label: string | undefined; vars: Record<string, string>},
  ): Promise<{target: string; pid: number | null; stillRunning: () => Promise<boolean>}> {
    const {dropSpawn} = await families.spawns()
    let target: string
    let pid: number | null
    let stillRunning: () => Promise<boolean>
    try {
      if (o.headless) {
        const {startDetached} = await import('../lib/agents/deliver.js')
        const {castHome} = await import('../lib/home/env.js')
        const {pidAlive} = await import('../core/ingest/process-table.js')
        const started = await startDetached(argv, {
          cwd: o.cwd,
          env: {...this.env, ...o.vars},
          home: castHome(this.env),
          logName: `spawn-${o.childId ? shortId(o.childId) : spawnId}`,
        })
        target = started.log
        pid = started.pid
        stillRunning = () => Promise.resolve(pidAlive(started.pid))
      } else {
        // Said before tmux starts, as headless says it: no window and no tmux server for a missing CLI.
        const {notRunnable} = await import('../lib/agents/agent-commands.js')
        const missing = notRunnable(argv[0] ?? '', {...this.env, PWD: o.cwd})
        if (missing !== null) throw new Error(missing)
        const {openWindow, paneAlive} = await import('../lib/agents/tmux.js')
        const pane = await openWindow({argv, cwd: o.cwd, name: o.label ?? o.agentName, session: 'cast', vars: o.vars}, this.env)
        target = `tmux ${pane.id} (${pane.address})`
        pid = pane.pid
        stillRunning = () => paneAlive(pane.id, this.env)
      }
    } catch (error) {
      dropSpawn(store, spawnId)
      const message = (error as Error).message
      this.fail(
        `Could not start ${o.agentName}: ${message}`,
        EXIT.FAILURE,
        /tmux/.test(message) ? ['Install tmux, or use --headless.'] : [],
      )
    }

    return {pid, stillRunning, target}
  }
}

/** Is `pid` the process `ancestor` or one of its descendants? */
function descendsFrom(pid: number, ancestor: number, parentPid: (pid: number) => number | null): boolean {
  let cur: number | null = pid
  for (let depth = 0; cur !== null && cur > 1 && depth < 64; depth++) {
    if (cur === ancestor) return true
    cur = parentPid(cur)
  }

  return false
}
