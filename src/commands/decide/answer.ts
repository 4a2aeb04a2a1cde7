import {Args, Flags} from '@oclif/core'

import {BaseCommand, type RemoteVerbJson} from '../../lib/cli/base-command.js'
import {EXIT} from '../../lib/base/exit-codes.js'
import {teamFlags} from '../../lib/cli/flags.js'
import type {DecisionJson} from '../../lib/views/views.js'
import {families} from '../../core/store/families.js'

/** `cast decide answer --json`: the answered card, and how the answer reached the agent. */
export interface AnswerJson {
  card: DecisionJson
  /** Sent into the session as its next turn (null: not sent). */
  delivered: {via: string} | null
  delivery_error: string | null
  /** A `cast decide --wait` was waiting and reads the answer itself. */
  waiting: boolean
}

export default class DecideAnswer extends BaseCommand {
  static override args = {
    card: Args.string({description: 'Card id or a unique prefix (4+ characters).', required: true}),
    choice: Args.string({description: 'The option: its number, or its label.', required: true}),
  }
  static override description = `Answers a decision card: the card leaves Questions, and an agent blocked in "cast decide --wait" gets the chosen label at once. When nobody is waiting on the card, the answer is also delivered to the session as its next turn (as "cast send" would: typed into its tmux pane, or resumed headless).

Answering a card the agent auto-decided while you were away confirms it (same option: nothing is sent) or changes it (another option: the change is sent to the session).`
  static override examples = [
    {
      command:
        'card=$(<%= config.bin %> decide "Keep the raw-header call sites?" --option "Keep :: no churn" --option "Migrate :: one style" --json | jq -r .id) && <%= config.bin %> <%= command.id %> "$card" 2',
      description: 'An agent asks (the id is in its JSON), you pick option 2.',
    },
    {
      command:
        'card=$(<%= config.bin %> decide "Which table layout?" --option "Wide table :: fast reads" --option "EAV :: flexible" --json | jq -r .id) && <%= config.bin %> <%= command.id %> "$card" "Wide table" --note "and add an index on ts"',
      description: 'Pick by label, with a note for the agent.',
    },
  ]
  static override flags = {
    ...teamFlags,
    note: Flags.string({helpValue: 'TEXT', summary: 'A note for the agent along with the choice.'}),
  }
  static override summary = 'Answer a decision card.'

  async run(): Promise<AnswerJson | RemoteVerbJson> {
    const {args, flags} = await this.parse(DecideAnswer)
    const remote = await this.remoteVerb('answer', args.card, {choice: args.choice, note: flags.note ?? null}, flags)
    if (remote) return remote
    const store = await this.openStore()
    const clock = this.clock()
    const {answerMessage, findCard, parseChoice} = await import('../../lib/triage/decide.js')
    const {answerDecision, getDecision, waiterLeaseName} = await families.decisions()
    const {leaseIsLive} = await import('../../lib/ingest/ingest.js')
    const {decisionJson} = await import('../../lib/views/views.js')
    const card = findCard(store, args.card)
    if (card.answeredAt !== null) {
      const label = card.options[(card.answer ?? 0) - 1]?.label ?? '?'
      this.fail(`Card ${card.id} was already answered by ${card.answeredBy} (${card.answer}. ${label}).`, EXIT.REFUSED)
    }

    const choice = parseChoice(card, args.choice)
    if (choice === null) {
      const list = card.options.map((o, i) => `${i + 1}. ${o.label}`).join(', ')
      this.fail(`"${args.choice}" is not an option of ${card.id}: ${list}.`, EXIT.USAGE)
    }

    const note = flags.note?.trim() || null
    if (!answerDecision(store, card.id, {at: clock(), by: this.me, choice, note})) {
      this.fail(`Card ${card.id} was answered by someone else a moment ago.`, EXIT.REFUSED)
    }

    const answered = getDecision(store, card.id)!
    // Who gets the answer: a waiting `decide --wait` reads it itself; else it goes in as a turn.
    const confirmedAuto = card.auto && card.answer === choice
    const waiting = leaseIsLive(store.getLease(waiterLeaseName(card.id)))
    let delivered: {via: string} | null = null
    let deliveryError: string | null = null
    if (!confirmedAuto && !waiting) {
      const {sendMessage} = await import('../../lib/agents/deliver.js')
      const message = answerMessage(card, choice, this.me, note, card.auto ? card.answer : null)
      try {
        const r = await sendMessage(store, this.env, clock, this.me, card.sessionId, message, {cause: `decision ${card.id}`})
        delivered = {via: r.via}
      } catch (error) {
        deliveryError = (error as Error).message
      }
    }

    const label = card.options[choice - 1]!.label
    if (!this.jsonEnabled()) {
      const how = confirmedAuto
        ? 'confirmed the auto-decision'
        : waiting
          ? 'the waiting agent has it'
          : delivered
            ? `delivered via ${delivered.via}`
            : `not delivered: ${deliveryError}`
      this.log(`${card.id}: ${choice}. ${label} (${how})`)
    }

    return {card: decisionJson(answered), delivered, delivery_error: deliveryError, waiting}
  }
}
