/**
 * OpenAI chat completions (`POST …/chat/completions`, SSE): pi, OpenCode (openai-compatible)
 * and, where it uses it, Copilot's offline provider. `GET …/models` is answered directly.
 * A request without tools is a side request (titles, summaries).
 */
import type {Protocol, Reply} from './server.js'
import {contentText, sse, sseHead, streamText} from './server.js'

let n = 0
const nextId = (p: string): string => `${p}-mock${String(++n).padStart(6, '0')}`

export const chatCompletions: Protocol = {
  decode(method, path, body) {
    if (method === 'GET') return {direct: {data: [{created: 0, id: 'mock-model', object: 'model', owned_by: 'mock'}], object: 'list'}}
    const msgs: any[] = Array.isArray(body?.messages) ? body.messages : []
    let toolResults = 0
    for (let i = msgs.length - 1; i >= 0 && msgs[i]?.role === 'tool'; i--) toolResults++
    const lastUser = [...msgs].reverse().find((m) => m?.role === 'user')
    const tools = Array.isArray(body?.tools) ? body.tools.length : 0
    return {lastUserText: contentText(lastUser?.content), side: tools === 0, stream: body?.stream === true, toolResults}
  },
  matches: (method, path) =>
    (method === 'POST' && /\/chat\/completions$/.test(path.split('?')[0]!)) || (method === 'GET' && /\/models$/.test(path.split('?')[0]!)),
  name: 'chat',
  sideReply: () => ({kind: 'text', text: 'Mock title'}),
  async write(reply: Reply, req, res, model) {
    if (reply.kind === 'http') {
      res.writeHead(reply.status, {'content-type': 'application/json', ...reply.headers})
      // OpenAI's error shapes: a 401 is an invalid_request_error (OpenCode 1.18 retries anything
      // typed server_error, a 401 included), a 429 a rate limit, the rest server errors.
      const type = reply.status === 401 ? 'invalid_request_error' : reply.status === 429 ? 'rate_limit_exceeded' : 'server_error'
      const code = reply.status === 401 ? 'invalid_api_key' : String(reply.status)
      res.end(reply.body ?? JSON.stringify({error: {code, message: `mock ${reply.status}`, param: null, type}}))
      return
    }
    const id = nextId('chatcmpl')
    const created = Math.floor(Date.now() / 1000)
    const usage = {completion_tokens: 12, prompt_tokens: 100, total_tokens: 112}
    if (!req.stream) {
      const message =
        reply.kind === 'tool'
          ? {
              content: reply.text ?? null,
              role: 'assistant',
              tool_calls: [
                {function: {arguments: JSON.stringify(reply.input), name: reply.name}, id: reply.id ?? nextId('call'), type: 'function'},
              ],
            }
          : {content: 'text' in reply ? reply.text : '', role: 'assistant'}
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(
        JSON.stringify({
          choices: [{finish_reason: reply.kind === 'tool' ? 'tool_calls' : 'stop', index: 0, message}],
          created,
          id,
          model,
          object: 'chat.completion',
          usage,
        }),
      )
      return
    }
    const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}): unknown => ({
      choices: [{delta, finish_reason: finish, index: 0}],
      created,
      id,
      model,
      object: 'chat.completion.chunk',
      ...extra,
    })
    sseHead(res)
    sse(res, chunk({content: '', role: 'assistant'}))
    if (reply.kind === 'stall') {
      if (reply.text) sse(res, chunk({content: reply.text}))
      return
    }
    if (reply.kind === 'truncated') {
      res.write(
        `data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${JSON.stringify(reply.text).slice(0, 6)}`,
      )
      await new Promise((r) => setTimeout(r, 50))
      res.destroy()
      return
    }
    let finish = 'stop'
    if (reply.kind === 'text') await streamText(res, reply, (p) => sse(res, chunk({content: p})))
    if (reply.kind === 'garbage') {
      const half = Math.ceil(reply.text.length / 2)
      sse(res, chunk({content: reply.text.slice(0, half)}))
      res.write('data: {not json at all\n\n')
      sse(res, chunk({content: reply.text.slice(half)}))
    }
    if (reply.kind === 'tool') {
      if (reply.text) sse(res, chunk({content: reply.text}))
      const callId = reply.id ?? nextId('call')
      sse(res, chunk({tool_calls: [{function: {arguments: '', name: reply.name}, id: callId, index: 0, type: 'function'}]}))
      sse(res, chunk({tool_calls: [{function: {arguments: JSON.stringify(reply.input)}, index: 0}]}))
      finish = 'tool_calls'
    }
    sse(res, chunk({}, finish))
    sse(res, {choices: [], created, id, model, object: 'chat.completion.chunk', usage})
    res.write('data: [DONE]\n\n')
    res.end()
  },
}
