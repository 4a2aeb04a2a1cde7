import {Flags} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'

/** One message of `cast queued --json`. */
export interface QueuedItemJson {
  id: string
  session: string
  short_id: string
  title: string | null
  message: string
  by: string
  at: string
  /** Why it was not delivered; null while it waits. */
  error: string | null
}

/** `cast queued --json`. */
export interface QueuedJson {
  held: QueuedItemJson[]
  failed: QueuedItemJson[]
  /** Files in the queue folder that are not queued messages (left alone, never shown). */
  unreadable: number
  /** The id removed by --drop. */
  dropped?: string
}

export default class Queued extends BaseCommand {
  static override description = `Lists the messages "cast send --queue" holds until their session's turn ends (oldest first), and those that could not be delivered, with why.

--drop ID withdraws a held message before it is typed (or clears a failed one). A message the daemon has already claimed for typing can no longer be withdrawn.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      command: '<%= config.bin %> <%= command.id %> --drop q1a2b3c4d',
      description: 'Withdraw one message by the id the listing shows; the demo holds none (exit 3).',
    },
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {
    drop: Flags.string({helpValue: 'ID', summary: 'Withdraw a held message (or clear a failed one) by its id.'}),
  }
  static override summary = 'List (or withdraw) messages held by cast send --queue.'

  async run(): Promise<QueuedJson> {
    const {flags} = await this.parse(Queued)
    const {dropQueued, listQueued} = await import('../lib/agents/send-queue.js')
    if (flags.drop !== undefined) {
      const id = flags.drop.trim()
      if (!dropQueued(this.env, id)) {
        this.fail(`No queued message "${id}" waits (cast queued lists them; one being typed cannot be withdrawn).`, EXIT.NOT_FOUND)
      }
    }

    const {failed, held, unreadable} = listQueued(this.env)
    const {shortId} = await import('../core/model/ids.js')
    const sessions = new Map<string, string | null>()
    if (held.length + failed.length > 0) {
      const {titleOf} = await import('../lib/views/views.js')
      const store = await this.openStore()
      for (const row of store.loadSessions([...new Set([...held, ...failed].map((e) => e.session_id))])) sessions.set(row.id, titleOf(row))
    }

    const item = (e: (typeof held)[number]): QueuedItemJson => ({
      at: e.at,
      by: e.by,
      error: e.error,
      id: e.id,
      message: e.message,
      session: e.session_id,
      short_id: shortId(e.session_id),
      title: sessions.get(e.session_id) ?? null,
    })
    const result: QueuedJson = {failed: failed.map(item), held: held.map(item), unreadable}
    if (flags.drop !== undefined) result.dropped = flags.drop.trim()
    if (!this.jsonEnabled()) {
      const {oneLine} = await import('../core/model/sanitize.js')
      const {humanTime} = await import('../lib/base/time-format.js')
      const now = this.now()
      const lines: string[] = []
      if (result.dropped) lines.push(`withdrew ${result.dropped}`)
      const show = (e: QueuedItemJson): string =>
        oneLine(`${e.id}  ${e.short_id}  ${e.title ?? '(untitled)'}  ·  ${humanTime(e.at, now, '?')}  ·  ${e.message}`)
      if (result.held.length === 0) lines.push('Nothing held: cast send --queue holds a message until the turn ends.')
      else lines.push(`${result.held.length} held (sent when the turn ends):`, ...result.held.map((e) => `  ${show(e)}`))
      if (result.failed.length > 0)
        lines.push(
          `${result.failed.length} not delivered:`,
          ...result.failed.flatMap((e) => [`  ${show(e)}`, `    ${oneLine(e.error ?? '')}`]),
        )
      if (unreadable > 0) lines.push(`${unreadable} file(s) in the queue folder are not queued messages (left alone).`)
      await this.logFitted(lines.join('\n'))
    }

    return result
  }
}
