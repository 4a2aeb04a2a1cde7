import {Flags} from '@oclif/core'

import {BaseCommand} from '../../lib/cli/base-command.js'
import type {DecisionJson} from '../../lib/views/views.js'
import {families} from '../../core/store/families.js'

/** `cast decide list --json`: the open cards (yours, or every one with --all). */
export interface DecideListJson {
  cards: DecisionJson[]
}

export default class DecideList extends BaseCommand {
  static override description = `Lists the decision cards waiting on you, oldest first: the card id, the session, how long it has waited, the question and the options (* marks the recommended one). A card an agent auto-decided while you were away stays here, marked "auto", until you confirm or change it with "cast decide answer". Cards of sessions owned by others are left out unless --all.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override flags = {
    all: Flags.boolean({summary: 'Include cards of sessions owned by others.'}),
  }
  static override summary = 'List open decision cards, oldest first.'

  async run(): Promise<DecideListJson> {
    const {flags} = await this.parse(DecideList)
    const {clock, store} = await this.syncedStore()
    const {openDecisions} = await families.decisions()
    const {isAssignedAwayFromOwnerSet} = await import('../../core/model/ownership.js')
    const {decisionJson} = await import('../../lib/views/views.js')
    const {formatAge} = await import('../../core/model/durations.js')
    const {shortId} = await import('../../core/model/ids.js')
    const now = clock()
    const cards = openDecisions(store)
    const rows = new Map(store.loadSessions([...new Set(cards.map((c) => c.sessionId))]).map((r) => [r.id, r]))
    const mine = cards.filter((c) => flags.all || !isAssignedAwayFromOwnerSet(rows.get(c.sessionId)?.records.owners ?? [], this.me))
    if (!this.jsonEnabled()) {
      if (mine.length === 0) {
        this.log('No open decision cards.')
      } else {
        const {boxTable} = await import('../../lib/views/table.js')
        const {terminalWidth} = await import('../../lib/views/style.js')
        const cells: string[][] = []
        for (const c of mine) {
          const options = c.options.map((o, i) => `${i + 1} ${o.label}${c.recommend === i + 1 ? '*' : ''}`).join(' · ')
          const status = c.auto && c.answer !== null ? `\nauto: ${c.answer}. ${c.options[c.answer - 1]?.label ?? '?'}` : ''
          cells.push([c.id, shortId(c.sessionId), formatAge(now - c.askedAt).replace(' ago', ''), c.question, options + status])
        }

        const head = ['CARD', 'SESSION', 'WAITING', 'QUESTION', 'OPTIONS']
        this.log(await boxTable(cells, {flex: [3, 4], head, max: {3: 38, 4: 34}, width: terminalWidth(this.env), wrap: true}))
      }
    }

    return {cards: mine.map((c) => decisionJson(c))}
  }
}
