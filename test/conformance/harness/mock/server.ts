/**
 * A scripted mock model server for the conformance suite (loopback only).
 *
 * One HTTP server speaks every wire protocol the agent CLIs call (Anthropic Messages, OpenAI
 * Responses, chat completions, Gemini streamGenerateContent); each protocol module decodes a
 * request into a MockRequest and encodes a Reply in its own stream format. A scenario is a
 * function from request to Reply; `sequence()` builds the usual one: replies handed out in order
 * to the agent's main requests, side requests (titles, quota probes, token counts) answered by
 * the protocol's default.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {anthropic} from './anthropic.js'
import {chatCompletions} from './chat-completions.js'
import {gemini} from './gemini.js'
import {responses} from './responses.js'

export type Reply =
  /** A plain streamed answer. `chunks` splits it into that many deltas; `delayMs` between them. */
  | {readonly kind: 'text'; readonly text: string; readonly chunks?: number; readonly delayMs?: number}
  /** One tool call (the protocol's function-call form), with optional text before it. */
  | {readonly kind: 'tool'; readonly name: string; readonly input: Record<string, unknown>; readonly id?: string; readonly text?: string}
  /** An HTTP error status with the protocol's error body (or `body`). */
  | {readonly kind: 'http'; readonly status: number; readonly body?: string; readonly headers?: Record<string, string>}
  /** Headers and the stream's opening, then nothing until the server closes or `release()`. */
  | {readonly kind: 'stall'; readonly text?: string}
  /** The stream starts, sends part of an event, then the socket is destroyed. */
  | {readonly kind: 'truncated'; readonly text: string}
  /** A garbage (non-JSON) chunk in the middle of an otherwise complete stream. */
  | {readonly kind: 'garbage'; readonly text: string}

export interface MockRequest {
  readonly protocol: ProtocolName
  readonly method: string
  readonly path: string
  readonly body: any
  /** A request the agent makes on the side (title, quota probe, summary), not the user's turn. */
  readonly side: boolean
  /** Whether the request streams (SSE) or wants one JSON body. */
  readonly stream: boolean
  /** The text of the last user message, when the protocol has one. */
  readonly lastUserText: string
  /** How many tool results the request carries in its last message. */
  readonly toolResults: number
  readonly at: number
}

export type ProtocolName = 'anthropic' | 'responses' | 'chat' | 'gemini'

export interface Protocol {
  readonly name: ProtocolName
  /** Does this protocol serve the path? */
  matches(method: string, path: string): boolean
  decode(
    method: string,
    path: string,
    body: any,
  ): Omit<MockRequest, 'at' | 'method' | 'path' | 'protocol' | 'body'> | {readonly direct: unknown}
  /** The answer to a side request when the scenario does not say. */
  sideReply(req: MockRequest): Reply
  /** Write the reply. Resolves when the response is over (a stall resolves at once). */
  write(reply: Reply, req: MockRequest, res: http.ServerResponse, model: string): Promise<void>
}

export const PROTOCOLS: readonly Protocol[] = [anthropic, responses, chatCompletions, gemini]

export type Script = (req: MockRequest) => Reply | undefined

export interface Mock {
  readonly port: number
  readonly url: string
  readonly requests: MockRequest[]
  /** Swap the scenario (e.g. between two prompts of one TUI). */
  setScript(script: Script): void
  /** End every stalled response (as the server closing its side would). */
  release(): void
  /** Resolves when `n` main (non-side) requests have arrived. */
  waitMain(n: number, timeoutMs?: number): Promise<void>
  mainCount(): number
  close(): Promise<void>
}

/**
 * Replies handed out in order to main requests; after the last, `after` (default: a short text).
 * Side requests get the scenario's `side` reply or the protocol's default.
 */
export function sequence(replies: readonly Reply[], opts: {after?: Reply; side?: (req: MockRequest) => Reply | undefined} = {}): Script {
  let i = 0
  return (req) => {
    if (req.side) return opts.side?.(req)
    if (i < replies.length) return replies[i++]
    return opts.after ?? {kind: 'text', text: 'Nothing more to do.'}
  }
}

export const text = (t: string, extra: {chunks?: number; delayMs?: number} = {}): Reply => ({kind: 'text', text: t, ...extra})
export const tool = (name: string, input: Record<string, unknown>, t?: string): Reply => ({input, kind: 'tool', name, text: t})
export const status = (code: number, headers?: Record<string, string>): Reply => ({headers, kind: 'http', status: code})
export const repeat = (r: Reply, n: number): Reply[] => Array.from({length: n}, () => r)

export async function startMock(script: Script, opts: {model?: string; log?: (line: string) => void} = {}): Promise<Mock> {
  let current = script
  const requests: MockRequest[] = []
  const stalled = new Set<http.ServerResponse>()
  const mainWaiters: {n: number; resolve: () => void}[] = []
  const model = opts.model ?? 'mock-model'
  const mainCount = (): number => requests.filter((r) => !r.side).length

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1')
        const raw = Buffer.concat(chunks).toString('utf8')
        let body: any = null
        try {
          body = raw ? JSON.parse(raw) : null
        } catch {
          body = raw
        }
        const method = req.method ?? 'GET'
        const proto = PROTOCOLS.find((p) => p.matches(method, url.pathname))
        if (!proto) {
          opts.log?.(`mock: ${method} ${url.pathname} (no protocol) -> 404`)
          res.writeHead(404, {'content-type': 'application/json'}).end('{"error":{"message":"not found"}}')
          return
        }
        const decoded = proto.decode(method, url.pathname + url.search, body)
        if ('direct' in decoded) {
          opts.log?.(`mock: ${method} ${url.pathname} -> direct`)
          res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(decoded.direct))
          return
        }
        const mreq: MockRequest = {...decoded, at: Date.now(), body, method, path: url.pathname + url.search, protocol: proto.name}
        requests.push(mreq)
        const reply = current(mreq) ?? (mreq.side ? proto.sideReply(mreq) : {kind: 'text', text: 'ok'})
        opts.log?.(
          `mock: ${method} ${url.pathname} side=${mreq.side} stream=${mreq.stream} user=${JSON.stringify(mreq.lastUserText.slice(0, 60))} -> ${reply.kind}`,
        )
        if (!mreq.side) {
          const n = mainCount()
          for (const w of mainWaiters.splice(0)) {
            if (n >= w.n) w.resolve()
            else mainWaiters.push(w)
          }
        }
        if (reply.kind === 'stall') stalled.add(res)
        res.on('close', () => stalled.delete(res))
        try {
          await proto.write(reply, mreq, res, model)
        } catch (error) {
          opts.log?.(`mock: write failed: ${String(error)}`)
          res.destroy()
        }
      })()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of stalled) r.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
    mainCount,
    port,
    release() {
      for (const r of stalled) r.destroy()
      stalled.clear()
    },
    requests,
    setScript(s) {
      current = s
    },
    url: `http://127.0.0.1:${port}`,
    waitMain(n, timeoutMs = 60_000) {
      if (mainCount() >= n) return Promise.resolve()
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`mock: ${mainCount()} of ${n} main requests within ${timeoutMs} ms`)), timeoutMs)
        mainWaiters.push({
          n,
          resolve: () => {
            clearTimeout(t)
            resolve()
          },
        })
      })
    },
  }
}

/** Shared SSE helpers for the protocol modules. */
export function sseHead(res: http.ServerResponse): void {
  res.writeHead(200, {'cache-control': 'no-cache', connection: 'keep-alive', 'content-type': 'text/event-stream'})
}

export function sse(res: http.ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Split a text into n roughly equal pieces (at least one). */
export function pieces(t: string, n = 1): string[] {
  if (n <= 1 || t.length <= 1) return [t]
  const size = Math.ceil(t.length / n)
  const out: string[] = []
  for (let i = 0; i < t.length; i += size) out.push(t.slice(i, i + size))
  return out
}

export async function streamText(
  res: http.ServerResponse,
  reply: {text: string; chunks?: number; delayMs?: number},
  each: (piece: string) => void,
): Promise<void> {
  const parts = pieces(reply.text, reply.chunks)
  for (const [i, p] of parts.entries()) {
    if (i > 0 && reply.delayMs) await sleep(reply.delayMs)
    each(p)
  }
}

/** Text content of a message's content (string or an array of parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .map((p: any) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : ''))
      .filter(Boolean)
      .join('\n')
  return ''
}
