/**
 * `cast mcp`: a stdio MCP server (the official SDK) an agent CLI starts from its MCP
 * configuration, over the same store as the CLI (src/lib/client). docs/mcp.md. The tools and
 * their schemas are in tools.ts; this file runs them. The server is a child of the agent, so
 * declare_state and ask_decision find the caller's session from this process's ancestry, as
 * `cast state` does (src/lib/client/own.ts), never from an id in the arguments.
 */
import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'

import {visible} from '../../core/model/sanitize.js'
import type {Inbox} from '../client/inbox.js'
import type {Env} from '../home/env.js'
import {TOOLS, type ToolInput, type ToolName} from './tools.js'

/** How often wait_for_answer and wait report progress while they block. */
const PROGRESS_MS = 5000

interface Extra {
  readonly _meta?: {progressToken?: string | number}
  readonly signal: AbortSignal
  sendNotification(n: {
    method: 'notifications/progress'
    params: {progressToken: string | number; progress: number; message?: string}
  }): Promise<void>
}

/** The JSON as the tool's result: pretty text (what the CLI prints) and the same object as structuredContent. */
function ok(json: unknown): CallToolResult {
  return {content: [{text: JSON.stringify(json, null, 2), type: 'text'}], structuredContent: json as Record<string, unknown>}
}

/** One refusal: the CLI's line and its exit code's name. */
async function refusal(error: unknown): Promise<CallToolResult> {
  const {toCastError} = await import('../client/errors.js')
  const e = toCastError(error)
  const hints = e.suggestions.length > 0 ? `\n${e.suggestions.map((s) => visible(s)).join('\n')}` : ''
  return {
    content: [{text: `cast: ${visible(e.message)} (exit ${e.exit}, ${e.code})${hints}`, type: 'text'}],
    isError: true,
    structuredContent: {error: {code: e.code, exit: e.exit, message: e.message, suggestions: e.suggestions}},
  }
}

/** Progress every PROGRESS_MS while `run` blocks, when the client asked for it (a progressToken). */
function progress(extra: Extra, what: string): (waitedMs: number) => void {
  const token = extra._meta?.progressToken
  let next = 0
  return (waitedMs) => {
    if (token === undefined || waitedMs < next) return
    next = waitedMs + PROGRESS_MS
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: {message: `${what}: ${Math.round(waitedMs / 1000)} s`, progress: Math.round(waitedMs / 1000), progressToken: token},
      })
      .catch(() => {})
  }
}

type Handler<N extends ToolName> = (inbox: Inbox, input: ToolInput<N>, extra: Extra) => Promise<unknown>

const HANDLERS: {[N in ToolName]: Handler<N>} = {
  declare_state: (inbox, i) => inbox.declare({status: i.status, text: i.text}),
  ask_decision: (inbox, i) =>
    inbox.decide({
      options: i.options,
      question: i.question,
      why: i.reasoning,
      ...(i.recommend === undefined ? {} : {recommend: i.recommend}),
    }),
  wait_for_answer: (inbox, i, extra) =>
    inbox.waitForAnswer(i.card, {
      onProgress: progress(extra, `waiting for an answer to ${i.card}`),
      signal: extra.signal,
      timeout: i.timeout * 1000,
    }),
  list_sessions: (inbox, i) => inbox.sessions({...(i.states ? {states: i.states} : {}), ...(i.label ? {label: i.label} : {})}),
  session: async (inbox, i) => {
    await inbox.sync()
    return inbox.explain(inbox.exactId(i.id))
  },
  send_to_session: async (inbox, i) => {
    const {sendFromMcp} = await import('./send.js')
    return sendFromMcp(inbox, {id: i.id, ifState: i.if_state, queue: i.queue, text: i.text})
  },
  schedule: async (inbox, i) => {
    await inbox.sync()
    const at = Date.parse(i.at)
    return inbox.schedule(inbox.exactId(i.id), {at: Number.isNaN(at) ? i.at : at, text: i.text})
  },
  wait: async (inbox, i, extra) => {
    await inbox.sync()
    const ids = i.ids.map((id) => inbox.exactId(id))
    const tick = progress(extra, `waiting for ${ids.length} session(s)`)
    const started = Date.now()
    const timer = setInterval(() => tick(Date.now() - started), 1000)
    try {
      return await inbox.wait(ids, {any: i.any ?? false, signal: extra.signal, timeout: i.timeout * 1000, until: i.until})
    } finally {
      clearInterval(timer)
    }
  },
}

/** Build the server over an open inbox (tests and the command share it). */
export function mcpServer(inbox: Inbox, version: string): McpServer {
  const server = new McpServer({name: 'cast', version}, {capabilities: {tools: {}}})
  for (const name of Object.keys(TOOLS) as ToolName[]) {
    const tool = TOOLS[name]
    server.registerTool(name, {description: tool.description, inputSchema: tool.input}, async (input: unknown, extra: unknown) => {
      try {
        return ok(await (HANDLERS[name] as Handler<ToolName>)(inbox, input as never, extra as Extra))
      } catch (error) {
        return refusal(error)
      }
    })
  }

  return server
}

/** Serve on stdin/stdout until the client closes its end. */
export async function serveMcp(env: Env, version: string): Promise<void> {
  const {openInbox} = await import('../client/inbox.js')
  const inbox = await openInbox({env})
  const server = mcpServer(inbox, version)
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once('end', () => resolve())
  })
  await server.connect(transport)
  await closed
  await server.close().catch(() => {})
  inbox.close()
}
