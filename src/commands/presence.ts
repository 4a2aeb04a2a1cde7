import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../lib/base-command.js'
import {EXIT} from '../lib/exit-codes.js'

export default class Presence extends BaseCommand {
  static override args = {
    name: Args.string({description: 'online, away, or a presence defined in the config. Omit it to read the current one.'}),
  }
  static override description = `Says whether you are there to answer, so agents know how long a question may block on you.

  online: a question may wait indefinitely (the default).
  away: never block on you. "cast decide --wait" takes the recommended option at once, marks the card auto-decided and leaves the note in your inbox.

Custom presences come from the config, each with a wait budget and instructions:

  "presences": [{"name": "focus", "wait_budget": "15m", "instructions": "Batch questions."}]

--for D makes it lapse back to online after D. An agent reads the instructions with "cast presence --json".`
  static override examples = [
    '<%= config.bin %> <%= command.id %> away --for 2h',
    '<%= config.bin %> <%= command.id %> online',
    {command: '<%= config.bin %> <%= command.id %> --json', description: 'What an agent reads: presence, wait budget, instructions.'},
  ]
  static override flags = {
    for: Flags.string({helpValue: 'D', summary: 'Lapse back to online after D (e.g. 2h, 90m).'}),
  }
  static override summary = 'Set or read your presence: online, away, or a custom one.'

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(Presence)
    const {loadConfig} = await import('../lib/config.js')
    const {parseDuration} = await import('../core/model/durations.js')
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
        const ms = parseDuration(flags.for)
        if (ms === null || ms <= 0) this.fail(`--for "${flags.for}" is not a duration (try 2h, 90m).`, EXIT.USAGE)
        until = now + ms
      }

      const {setPresence} = await import('../core/store/presence.js')
      setPresence(store, {presence: name, setAt: now, until, who: this.me})
    } else if (flags.for !== undefined) {
      this.fail('--for needs a presence: cast presence away --for 2h', EXIT.USAGE)
    }

    const {presenceFor} = await import('../lib/decide.js')
    const p = presenceFor(store, config, this.me, now)
    const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString())
    if (!this.jsonEnabled()) {
      const budget = p.waitBudgetMs === null ? 'questions may wait indefinitely' : p.waitBudgetMs === 0 ? 'questions never block' : `questions block at most ${formatMs(p.waitBudgetMs)}`
      this.log(`${p.who}: ${p.name}${p.until === null ? '' : ` until ${iso(p.until)}`} (${budget})`)
      if (p.instructions) this.log(`instructions: ${p.instructions}`)
    }

    return {
      instructions: p.instructions,
      presence: p.name,
      presences: config.presences.map((x) => ({instructions: x.instructions, name: x.name, wait_budget_ms: x.waitBudgetMs})),
      since: iso(p.since),
      until: iso(p.until),
      wait_budget_ms: p.waitBudgetMs,
      who: p.who,
    }
  }
}

function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`
  if (ms % 60_000 === 0) return `${ms / 60_000}m`
  return `${Math.round(ms / 1000)}s`
}
