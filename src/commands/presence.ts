import {Args, Flags} from '@oclif/core'

import {nudgeHookNames} from '../lib/agents/agent-commands.js'
import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'
import {durationFlag} from '../lib/cli/time-flags.js'
import {families} from '../core/store/families.js'

/** `cast presence --json`: the presence in force, the ones defined, and who heard the notice. */
export interface PresenceJson {
  instructions: string
  notice: string | null
  told: {agent: string; id: string; native_id: string}[]
  presence: string
  presences: {instructions: string; name: string; wait_budget_ms: number | null}[]
  since: string | null
  until: string | null
  wait_budget_ms: number | null
  who: string
  /** At the desk or away, as paging sees it: while active the phone is held and the desktop shows. */
  paging: {active: boolean; why: string | null; window_ms: number; signals: {source: string; at: string; detail: string}[]}
}

export default class Presence extends BaseCommand {
  static override args = {
    name: Args.string({description: 'online, away, or a presence defined in the config. Omit it to read the current one.'}),
  }
  static override description = `Says whether you are there to answer, so agents know how long a question may block on you.

  online: a question may wait indefinitely (the default).
  away: never block on you. "cast decide --wait" takes the recommended option at once, marks the card auto-decided and leaves the note in your inbox.

Custom presences come from the config, each with a wait budget and instructions:

  "presences": [{"name": "focus", "wait_budget": "15m", "instructions": "Batch questions."}]

--for D makes it lapse back to online after D. An agent reads the instructions with "cast presence --json".

A change reaches running agents: sessions with cast's hooks (cast hooks install ${nudgeHookNames()}) get the notice as context on their next prompt (or at their start). With --notify-agents, every live session resting at its prompt in tmux is also sent the notice now, as its next input (cast send's safety rules: never into an open dialog, never while it works). "cast presence" lists the sessions told.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> away --for 2h',
    '<%= config.bin %> <%= command.id %> online',
    {command: '<%= config.bin %> <%= command.id %> --json', description: 'What an agent reads: presence, wait budget, instructions.'},
  ]
  static override flags = {
    for: durationFlag({helpValue: 'D', min: 1, summary: 'Lapse back to online after D (e.g. 2h, 90m).'}),
    'notify-agents': Flags.boolean({summary: 'Also send the notice now to every live session resting at its prompt (cast send).'}),
  }
  static override summary = 'Set or read your presence: online, away, or a custom one.'

  async run(): Promise<PresenceJson> {
    const {args, flags} = await this.parse(Presence)
    const {loadConfig} = await import('../lib/home/config.js')
    const config = await loadConfig(this.env)
    const store = await this.openStore()
    const now = this.now()
    if (args.name !== undefined) {
      const name = args.name.trim().toLowerCase()
      if (!config.presences.some((p) => p.name === name)) {
        this.fail(`Unknown presence "${args.name}"; known: ${config.presences.map((p) => p.name).join(', ')}.`, EXIT.USAGE, [
          `Define it in ${config.file}: "presences": [{"name": "${name}", "wait_budget": "15m", "instructions": "…"}]`,
        ])
      }

      let until: number | null = null
      if (flags.for !== undefined) {
        if (name === 'online') this.fail('online has no end: --for applies to the other presences.', EXIT.USAGE)
        until = now + flags.for
      }

      const {setPresence} = await families.presence()
      setPresence(store, {presence: name, setAt: now, until, who: this.me})
      const {presenceFor: pf} = await import('../lib/verbs/decide.js')
      const {writePresenceNotice} = await import('../lib/ingest/turn-marks.js')
      const cur = pf(store, config, this.me, now)
      writePresenceNotice(this.env, {id: String(now), text: noticeText(cur.who, cur.name, until, cur.instructions)})
      if (flags['notify-agents']) await this.notifyAgents(store, String(now), noticeText(cur.who, cur.name, until, cur.instructions))
    } else if (flags.for !== undefined) {
      this.fail('--for needs a presence: cast presence away --for 2h', EXIT.USAGE)
    }

    const {presenceFor} = await import('../lib/verbs/decide.js')
    const p = presenceFor(store, config, this.me, now)
    const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString())
    if (!this.jsonEnabled()) {
      const budget =
        p.waitBudgetMs === null
          ? 'questions may wait indefinitely'
          : p.waitBudgetMs === 0
            ? 'questions never block'
            : `questions block at most ${formatMs(p.waitBudgetMs)}`
      this.log(
        `${p.who}: ${p.name}${p.until === null ? '' : ` until ${(await import('../lib/base/time-format.js')).humanTime(p.until, now)}`} (${budget})`,
      )
      if (p.instructions) this.log(`instructions: ${p.instructions}`)
    }

    // Who heard the current notice: the hook marks each session it told (and --notify-agents' sends).
    const {readPresenceNotice, toldOf} = await import('../lib/ingest/turn-marks.js')
    const {castId, shortId} = await import('../core/model/ids.js')
    const notice = readPresenceNotice(this.env)
    const told =
      notice === null
        ? []
        : toldOf(this.env, notice.id).map((t) => ({agent: t.agent, id: castId(t.agent as never, t.nativeId), native_id: t.nativeId}))
    if (!this.jsonEnabled() && notice !== null) {
      this.log(
        told.length === 0
          ? 'told: no session yet (each hears it on its next prompt)'
          : `told: ${told.map((t) => `${shortId(t.id)} (${t.agent})`).join(', ')}`,
      )
    }

    const paging = await this.paging(store, now, config.notify?.activeWindowMs)
    return {
      paging,
      instructions: p.instructions,
      notice: notice?.text ?? null,
      told,
      presence: p.name,
      presences: config.presences.map((x) => ({instructions: x.instructions, name: x.name, wait_budget_ms: x.waitBudgetMs})),
      since: iso(p.since),
      until: iso(p.until),
      wait_budget_ms: p.waitBudgetMs,
      who: p.who,
    }
  }

  /** What paging believes (src/lib/notify/activity.ts): at the desk (the phone held) or away, and why. */
  private async paging(
    store: Awaited<ReturnType<BaseCommand['openStore']>>,
    now: number,
    windowMs?: number,
  ): Promise<PresenceJson['paging']> {
    const {DEFAULT_ACTIVE_WINDOW_MS, deskPresence} = await import('../lib/notify/activity.js')
    const {castHome} = await import('../lib/home/env.js')
    const {humanTime} = await import('../lib/base/time-format.js')
    const {oneLine} = await import('../core/model/sanitize.js')
    await this.sync(store, this.clock())
    const rows = store.loadSessions().filter((r) => r.facts.process?.alive === true)
    const d = await deskPresence({env: this.env, home: castHome(this.env), now, rows, windowMs: windowMs ?? DEFAULT_ACTIVE_WINDOW_MS})
    const mins = Math.round(d.windowMs / 60_000)
    if (!this.jsonEnabled()) {
      this.log(
        d.why
          ? `paging: at the desk (${oneLine(d.why.detail)}, ${humanTime(d.why.at, now)}): the phone is held, the desktop shows`
          : `paging: away (no keystroke in cast inbox, the page or an agent's tmux pane in the last ${mins} min): pages go to the phone`,
      )
    }

    return {
      active: d.active,
      signals: d.signals.map((s) => ({at: new Date(s.at).toISOString(), detail: s.detail, source: s.source})),
      why: d.why?.detail ?? null,
      window_ms: d.windowMs,
    }
  }

  /** --notify-agents: send the notice to each live session resting at its prompt, with cast send's safety rules. */
  private async notifyAgents(store: Awaited<ReturnType<BaseCommand['openStore']>>, id: string, text: string): Promise<void> {
    const {sendMessage} = await import('../lib/agents/deliver.js')
    const {setPresenceMark} = await import('../lib/ingest/turn-marks.js')
    const {shortId} = await import('../core/model/ids.js')
    const clock = this.clock()
    await this.sync(store, clock)
    const at = [
      {reason: null, state: 'needs_input' as const},
      {reason: null, state: 'done' as const},
    ]
    for (const row of store.loadSessions()) {
      const proc = row.facts.process
      if (row.parentId !== null || proc === null || !proc.alive || proc.exited !== null) continue
      if (row.records.owners.length > 0 && !row.records.owners.includes(this.me)) continue
      if (row.state !== 'needs_input' && row.state !== 'done') continue
      try {
        const r = await sendMessage(store, this.env, clock, this.me, row.id, text, {cause: 'presence', ifMatch: at, synced: true})
        if (r.route !== 'tmux') continue
        setPresenceMark(this.env, row.agent, row.nativeId, id)
        if (!this.jsonEnabled()) this.log(`sent the notice to ${shortId(row.id)} (${r.via})`)
      } catch (error) {
        if (!this.jsonEnabled()) this.log(`not sent to ${shortId(row.id)}: ${(error as Error).message.split('\n')[0]}`)
      }
    }
  }
}

/** The sentence a running agent gets when presence changes (seed 001: "reaches the agent as a notice"). */
export function noticeText(who: string, name: string, until: number | null, instructions: string): string {
  const lapse = until === null ? '' : ` until ${new Date(until).toISOString()}`
  const what =
    name === 'online'
      ? 'A question may wait for their answer.'
      : name === 'away'
        ? 'Never block on them: decide, keep working, and leave notes in the inbox (cast decide --wait takes the recommended option at once).'
        : ''
  return `cast: ${who}'s presence is now ${name}${lapse}. ${[what, instructions].filter(Boolean).join(' ')}`.trim()
}

function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`
  if (ms % 60_000 === 0) return `${ms / 60_000}m`
  return `${Math.round(ms / 1000)}s`
}
