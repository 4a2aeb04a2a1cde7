/**
 * Anthropic Messages (`POST /v1/messages`, SSE): what Claude Code speaks.
 * A request without tools is a side request (quota probe, title, topic); token counts are
 * answered directly. A non-streaming request with tools is the CLI's fallback after a broken
 * stream, answered as one JSON message.
 */
import type {Protocol, Reply} from './server.js'
import {contentText, sse, sseHead, streamText} from './server.js'

let n = 0
const nextId = (p: string): string => `${p}_mock${String(++n).padStart(6, '0')}`

function lastUser(body: any): {text: string; toolResults: number} {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : []
  const last = [...msgs].reverse().find((m) => m?.role === 'user')
  if (!last) return {text: '', toolResults: 0}
  const parts: any[] = Array.isArray(last.content) ? last.content : []
  const toolResults = parts.filter((p) => p?.type === 'tool_result').length
  const text =
    typeof last.content === 'string'
      ? last.content
      : parts
          .filter((p) => p?.type === 'text')
          .map((p) => String(p.text))
          .join('\n')
  return {text, toolResults}
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

export const anthropic: Protocol = {
  decode(_method, path, body) {
    if (path.startsWith('/v1/messages/count_tokens')) return {direct: {input_tokens: 100}}
    const {text, toolResults} = lastUser(body)
    const tools = Array.isArray(body?.tools) ? body.tools.length : 0
    // Claude Code 2.1.328 retries a broken stream as a non-streaming request with its tools: a
    // main request all the same. Side requests (quota probe, title, topic) carry no tools.
    return {
      lastUserText: text || contentText(body?.messages?.at?.(-1)?.content),
      side: tools === 0,
      stream: body?.stream === true,
      toolResults,
    }
  },
  matches: (method, path) => method === 'POST' && path.startsWith('/v1/messages'),
  name: 'anthropic',
  sideReply: () => ({kind: 'text', text: 'Mock title'}),
  async write(reply: Reply, req, res, model) {
    if (reply.kind === 'http') {
      const type = ERROR_TYPES[reply.status] ?? 'api_error'
      res.writeHead(reply.status, {'content-type': 'application/json', 'request-id': nextId('req'), ...reply.headers})
      res.end(reply.body ?? JSON.stringify({error: {message: `mock ${reply.status}`, type}, type: 'error'}))
      return
    }
    const id = nextId('msg')
    const usage = {cache_creation_input_tokens: 0, cache_read_input_tokens: 0, input_tokens: 100, output_tokens: 1}
    if (!req.stream) {
      const content =
        reply.kind === 'tool'
          ? [{id: reply.id ?? nextId('toolu'), input: reply.input, name: reply.name, type: 'tool_use'}]
          : [{text: 'text' in reply ? reply.text : '', type: 'text'}]
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(
        JSON.stringify({
          content,
          id,
          model,
          role: 'assistant',
          stop_reason: reply.kind === 'tool' ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          type: 'message',
          usage,
        }),
      )
      return
    }
    sseHead(res)
    sse(
      res,
      {
        message: {content: [], id, model, role: 'assistant', stop_reason: null, stop_sequence: null, type: 'message', usage},
        type: 'message_start',
      },
      'message_start',
    )
    if (reply.kind === 'stall') {
      if (reply.text) {
        sse(res, {content_block: {text: '', type: 'text'}, index: 0, type: 'content_block_start'}, 'content_block_start')
        sse(res, {delta: {text: reply.text, type: 'text_delta'}, index: 0, type: 'content_block_delta'}, 'content_block_delta')
      }
      return
    }
    if (reply.kind === 'truncated') {
      sse(res, {content_block: {text: '', type: 'text'}, index: 0, type: 'content_block_start'}, 'content_block_start')
      res.write(
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(reply.text).slice(0, 8)}`,
      )
      await new Promise((r) => setTimeout(r, 50))
      res.destroy()
      return
    }
    let index = 0
    let stop = 'end_turn'
    const textBlock = async (t: string, r: {chunks?: number; delayMs?: number} = {}): Promise<void> => {
      sse(res, {content_block: {text: '', type: 'text'}, index, type: 'content_block_start'}, 'content_block_start')
      await streamText(res, {text: t, ...r}, (p) =>
        sse(res, {delta: {text: p, type: 'text_delta'}, index, type: 'content_block_delta'}, 'content_block_delta'),
      )
      sse(res, {index, type: 'content_block_stop'}, 'content_block_stop')
      index++
    }
    if (reply.kind === 'text') await textBlock(reply.text, reply)
    if (reply.kind === 'garbage') {
      sse(res, {content_block: {text: '', type: 'text'}, index, type: 'content_block_start'}, 'content_block_start')
      sse(
        res,
        {delta: {text: reply.text.slice(0, Math.ceil(reply.text.length / 2)), type: 'text_delta'}, index, type: 'content_block_delta'},
        'content_block_delta',
      )
      res.write('event: content_block_delta\ndata: {not json at all\n\n')
      sse(
        res,
        {delta: {text: reply.text.slice(Math.ceil(reply.text.length / 2)), type: 'text_delta'}, index, type: 'content_block_delta'},
        'content_block_delta',
      )
      sse(res, {index, type: 'content_block_stop'}, 'content_block_stop')
      index++
    }
    if (reply.kind === 'tool') {
      if (reply.text) await textBlock(reply.text)
      sse(
        res,
        {
          content_block: {id: reply.id ?? nextId('toolu'), input: {}, name: reply.name, type: 'tool_use'},
          index,
          type: 'content_block_start',
        },
        'content_block_start',
      )
      sse(
        res,
        {delta: {partial_json: JSON.stringify(reply.input), type: 'input_json_delta'}, index, type: 'content_block_delta'},
        'content_block_delta',
      )
      sse(res, {index, type: 'content_block_stop'}, 'content_block_stop')
      stop = 'tool_use'
    }
    sse(res, {delta: {stop_reason: stop, stop_sequence: null}, type: 'message_delta', usage: {output_tokens: 12}}, 'message_delta')
    sse(res, {type: 'message_stop'}, 'message_stop')
    res.end()
  },
}
