import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import {sessionFlag} from '../../lib/cli/flags.js'
import {durationFlag, flagInput} from '../../lib/cli/time-flags.js'
import type {DecisionJson} from '../../lib/views/views.js'
import {families} from '../../core/store/families.js'

export const MAX_QUESTION = 2000
export const MAX_OPTION = 500
export const MAX_WHY = 8000

/** How often a waiting `decide --wait` looks at the store. */
const POLL_MS = 200

export default class Decide extends BaseCommand {
  static override args = {
    question: Args.string({description: 'The one question you need the person to decide.', required: true}),
  }
  static override description = `Posts a decision card to your session: one question, 2 to 9 priced options ("LABEL :: what it costs or does"), your recommendation and your reasoning. The session moves to Questions until the person answers with "cast decide answer CARD N".

With --wait the command blocks until the answer comes and prints the chosen label (with --json the whole card). It never blocks past the person's presence: while they are away (or in a custom presence whose wait budget ran out) it takes the recommended option, else the first, marks the card auto-decided with a note the inbox shows, and returns it. --timeout gives up with exit 124 and leaves the card open.

Without --wait, the answer is delivered to your session as its next turn when it comes.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> "Which schema for the events table?" --option "Wide table :: one migration, fast reads" --option "EAV :: flexible, slower reports" --recommend 1 --why "Reports are the hot path"',
    {
      command: '<%= config.bin %> <%= command.id %> --option "Ship :: today" --option "Wait :: a day" "Ship the fix now?"',
      description: 'Options may come before the question.',
    },
    {
      command:
        'choice=$(<%= config.bin %> <%= command.id %> "Deploy now?" --option "Yes :: 10 min downtime" --option "Tonight :: no downtime" --recommend 2 --wait --timeout 2s)',
      description: 'Block until answered or the presence budget runs out; here nobody answers within 2s (exit 124).',
    },
  ]
  static override flags = {
    // Non-greedy: `cast decide --option A --option B "Question?"` leaves the question an argument.
    option: Flags.string({
      char: 'o',
      helpValue: '"LABEL :: effect"',
      multiple: true,
      multipleNonGreedy: true,
      required: true,
      summary: 'An option (2 to 9, in order; repeat the flag for each).',
    }),
    recommend: Flags.integer({helpValue: 'N', min: 1, summary: 'The option you recommend (1-based).'}),
    session: sessionFlag,
    timeout: durationFlag({dependsOn: ['wait'], helpValue: 'D', summary: 'With --wait: give up after D (exit 124); the card stays open.'}),
    wait: Flags.boolean({summary: 'Block until answered; print the chosen label.'}),
    why: Flags.string({helpValue: 'TEXT|-', summary: 'Your reasoning; "-" reads it from stdin.'}),
  }
  static override summary = 'Ask the person a decision with priced options.'

  async run(): Promise<DecisionJson> {
    const {args, flags, raw} = await this.parse(Decide)
    const {MAX_OPTIONS, MIN_OPTIONS, parseOption} = await import('../../lib/verbs/decide.js')
    const question = args.question.trim()
    if (question === '') this.fail('The question is empty.', EXIT.USAGE)
    if (question.length > MAX_QUESTION)
      this.fail(`The question is ${question.length} characters; keep it under ${MAX_QUESTION}.`, EXIT.USAGE)
    for (const o of flags.option) {
      if (o.length > MAX_OPTION) this.fail(`An option is ${o.length} characters; keep each under ${MAX_OPTION}.`, EXIT.USAGE)
    }

    if ((flags.why?.length ?? 0) > MAX_WHY) this.fail(`--why is ${flags.why!.length} characters; keep it under ${MAX_WHY}.`, EXIT.USAGE)
    const options = flags.option.map((o) => parseOption(o) ?? this.fail(`Option "${o}" has no label; write "LABEL :: effect".`, EXIT.USAGE))
    if (options.length < MIN_OPTIONS || options.length > MAX_OPTIONS) {
      this.fail(`A decision takes ${MIN_OPTIONS} to ${MAX_OPTIONS} options; got ${options.length}.`, EXIT.USAGE)
    }

    const seen = new Set<string>()
    for (const o of options) {
      const k = o.label.toLowerCase()
      if (seen.has(k)) this.fail(`Two options are labelled "${o.label}"; labels must differ.`, EXIT.USAGE)
      seen.add(k)
    }

    if (flags.recommend !== undefined && flags.recommend > options.length) {
      this.fail(`--recommend ${flags.recommend}: there are only ${options.length} options.`, EXIT.USAGE)
    }

    let why = flags.why ?? null
    if (why === '-') {
      const {readStdin} = await import('../../lib/cli/stdin.js')
      why = (await readStdin()).replace(/\s+$/, '')
    }

    const {clock, store} = await this.syncedStore()
    const {findOwnSession} = await import('../../lib/agents/self-session.js')
    const {postDecision} = await families.decisions()
    const {decisionJson} = await import('../../lib/views/views.js')
    const self = findOwnSession(store, flags.session, this.env)
    const card = postDecision(store, {
      askedAt: clock(),
      askedBy: this.me,
      options,
      question,
      recommend: flags.recommend ?? null,
      sessionId: self.id,
      waiter: flags.wait ? {host: (await import('node:os')).hostname(), pid: process.pid} : undefined,
      why: why || null,
    })
    if (!flags.wait) {
      if (!this.jsonEnabled()) {
        const {renderCard} = await import('../../lib/verbs/decide.js')
        this.log(renderCard(card, clock()))
        this.log(`Posted. The answer comes to this session as its next turn; or read it with: cast decide show ${card.id}`)
      }

      return decisionJson(card)
    }

    const answered = await this.waitForAnswer(
      store,
      clock,
      card.id,
      flags.timeout === undefined ? null : {ms: flags.timeout, text: flagInput(raw, 'timeout') ?? `${flags.timeout} ms`},
    )
    const json = decisionJson(answered)
    if (!this.jsonEnabled()) {
      if (answered.auto && answered.answerNote) process.stderr.write(`cast: auto-decided: ${answered.answerNote}\n`)
      this.log(json.answer_label ?? '')
    }

    return json
  }

  /**
   * Poll until the card has an answer. While the person's presence has a wait budget, take the
   * recommended option (else the first) once the card has waited that long, by the store's clock
   * or the real one, whichever ran further.
   */
  private async waitForAnswer(
    store: import('../../core/store/store.js').Store,
    clock: () => number,
    id: string,
    timeout: {ms: number; text: string} | null,
  ) {
    const {hostname} = await import('node:os')
    const {autoDecide, getDecision, waiterLeaseName} = await families.decisions()
    const {presenceFor, waitBudget} = await import('../../lib/verbs/decide.js')
    const {loadConfig} = await import('../../lib/home/config.js')
    const config = await loadConfig(this.env)
    const lease = waiterLeaseName(id)
    const started = performance.now()
    let announced = false
    // Lease times are real time: they say whether this process is still there, not domain time.
    store.acquireLease(lease, {host: hostname(), pid: process.pid}, Date.now(), () => true)
    try {
      for (;;) {
        const card = getDecision(store, id)!
        if (card.answer !== null) return card
        const now = clock()
        const row = store.loadSessions([card.sessionId])[0]
        const people = row && row.records.owners.length > 0 ? row.records.owners : [row?.runner ?? this.me]
        const presences = people.map((who) => presenceFor(store, config, who, now))
        const {binding, budgetMs} = waitBudget(presences)
        const waited = Math.max(now - card.askedAt, performance.now() - started)
        if (budgetMs !== null && binding !== null && waited >= budgetMs) {
          const choice = card.recommend ?? 1
          const label = card.options[choice - 1]?.label ?? '?'
          const why = card.recommend === null ? 'no option was recommended, so the first' : 'the recommended option'
          const note = `${binding.who} was ${binding.name}; took ${choice}. ${label} (${why})`
          autoDecide(store, id, {at: now, by: `${this.me} (auto)`, choice, note})
          continue
        }

        if (timeout !== null && performance.now() - started >= timeout.ms) {
          this.fail(`No answer to ${id} within ${timeout.text}; the card stays open.`, EXIT.TIMEOUT, [
            `Wait again later with: cast decide show ${id}`,
          ])
        }

        if (!announced && !this.jsonEnabled()) {
          const limit =
            budgetMs === null ? '' : `; ${binding?.who} is ${binding?.name}, so at most ${Math.round((budgetMs - waited) / 1000)} s more`
          process.stderr.write(`cast: waiting for an answer to ${id} (cast decide answer ${id} N)${limit}\n`)
          announced = true
        }

        store.heartbeatLease(lease, process.pid, Date.now())
        await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      }
    } finally {
      store.releaseLease(lease, process.pid)
    }
  }
}
