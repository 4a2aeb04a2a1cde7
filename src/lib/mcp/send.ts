/**
 * The one call `cast mcp` makes to send into a session: the library's send verb
 * (src/lib/client/verbs.ts sendToSession, the code path `cast send` takes), recorded in the sends
 * log as from `cast mcp`. An exact id only: the caller resolved it (Inbox.exactId).
 */
import type {Inbox} from '../client/inbox.js'
import type {QueuedJson, SendJson} from '../client/verbs.js'

export interface McpSend {
  readonly id: string
  readonly text: string
  readonly ifState?: readonly string[]
  readonly queue?: boolean
}

export async function sendFromMcp(inbox: Inbox, input: McpSend): Promise<SendJson | QueuedJson> {
  const {sendToSession} = await import('../client/verbs.js')
  await inbox.sync()
  return sendToSession(inbox.context, {
    cause: 'cast mcp',
    id: inbox.exactId(input.id),
    ...(input.ifState ? {ifState: input.ifState} : {}),
    queue: input.queue ?? false,
    text: input.text,
  })
}
