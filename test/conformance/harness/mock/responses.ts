/**
 * OpenAI Responses (`POST …/responses`, SSE): what Codex speaks. Codex's title side thread
 * asks for structured output (`text.format.name: "codex_output_schema"`): a side request,
 * answered with an object that fills every string property of the schema.
 */
import type {Protocol, Reply} from './server.js'
import {contentText, sse, sseHead, streamText} from './server.js'

let n = 0
const nextId = (p: string): string => `${p}_mock${String(++n).padStart(6, '0')}`

function schemaAnswer(body: any): string {
  const props = body?.text?.format?.schema?.properties
  const out: Record<string, unknown> = {}
  if (props && typeof props === 'object')
    for (const [k, v] of Object.entries<any>(props))
      out[k] = v?.type === 'string' ? 'Mock title' : v?.type === 'array' ? [] : v?.type === 'boolean' ? false : null
  return JSON.stringify(Object.keys(out).length > 0 ? out : {title: 'Mock title'})
}

export const responses: Protocol = {
  decode(method, _path, body) {
    if (method === 'GET') return {direct: {data: [{id: 'mock-model', object: 'model'}], models: [], object: 'list'}}
    const input: any[] = Array.isArray(body?.input) ? body.input : []
    let toolResults = 0
    for (let i = input.length - 1; i >= 0 && /_output$/.test(String(input[i]?.type ?? '')); i--) toolResults++
    const lastUser = [...input].reverse().find((m) => m?.role === 'user')
    const side = body?.text?.format?.name === 'codex_output_schema' || body?.text?.format?.type === 'json_schema'
    return {lastUserText: contentText(lastUser?.content), side, stream: body?.stream !== false, toolResults}
  },
  matches: (method, path) =>
    (method === 'POST' && /\/responses$/.test(path.split('?')[0]!)) ||
    (method === 'GET' && /\/v1\/models$/.test(path.split('?')[0]!) && false),
  name: 'responses',
  sideReply: (req) => ({kind: 'text', text: schemaAnswer(req.body)}),
  async write(reply: Reply, _req, res, model) {
    if (reply.kind === 'http') {
      res.writeHead(reply.status, {'content-type': 'application/json', ...reply.headers})
      res.end(
        reply.body ??
          JSON.stringify({
            error: {
              code: reply.status === 429 ? 'rate_limit_exceeded' : 'server_error',
              message: `mock ${reply.status}`,
              type: reply.status === 429 ? 'rate_limit_exceeded' : 'server_error',
            },
          }),
      )
      return
    }
    const id = nextId('resp')
    const created_at = Math.floor(Date.now() / 1000)
    let seq = 0
    const ev = (type: string, data: Record<string, unknown>): void => sse(res, {sequence_number: seq++, type, ...data}, type)
    const base = {created_at, id, model, object: 'response'}
    sseHead(res)
    ev('response.created', {response: {...base, output: [], status: 'in_progress'}})
    if (reply.kind === 'stall') {
      if (reply.text) {
        const mid = nextId('msg')
        ev('response.output_item.added', {
          item: {content: [], id: mid, role: 'assistant', status: 'in_progress', type: 'message'},
          output_index: 0,
        })
        ev('response.output_text.delta', {content_index: 0, delta: reply.text, item_id: mid, output_index: 0})
      }
      return
    }
    if (reply.kind === 'truncated') {
      res.write(
        `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":${JSON.stringify(reply.text).slice(0, 6)}`,
      )
      await new Promise((r) => setTimeout(r, 50))
      res.destroy()
      return
    }
    const output: unknown[] = []
    let idx = 0
    const message = async (t: string, r: {chunks?: number; delayMs?: number} = {}, garbage = false): Promise<void> => {
      const mid = nextId('msg')
      ev('response.output_item.added', {
        item: {content: [], id: mid, role: 'assistant', status: 'in_progress', type: 'message'},
        output_index: idx,
      })
      ev('response.content_part.added', {
        content_index: 0,
        item_id: mid,
        output_index: idx,
        part: {annotations: [], text: '', type: 'output_text'},
      })
      if (garbage) {
        const half = Math.ceil(t.length / 2)
        ev('response.output_text.delta', {content_index: 0, delta: t.slice(0, half), item_id: mid, output_index: idx})
        res.write('event: response.output_text.delta\ndata: {not json at all\n\n')
        ev('response.output_text.delta', {content_index: 0, delta: t.slice(half), item_id: mid, output_index: idx})
      } else
        await streamText(res, {text: t, ...r}, (p) =>
          ev('response.output_text.delta', {content_index: 0, delta: p, item_id: mid, output_index: idx}),
        )
      ev('response.output_text.done', {content_index: 0, item_id: mid, output_index: idx, text: t})
      const item = {
        content: [{annotations: [], text: t, type: 'output_text'}],
        id: mid,
        role: 'assistant',
        status: 'completed',
        type: 'message',
      }
      ev('response.content_part.done', {content_index: 0, item_id: mid, output_index: idx, part: item.content[0]})
      ev('response.output_item.done', {item, output_index: idx})
      output.push(item)
      idx++
    }
    if (reply.kind === 'text') await message(reply.text, reply)
    if (reply.kind === 'garbage') await message(reply.text, {}, true)
    if (reply.kind === 'tool') {
      if (reply.text) await message(reply.text)
      const fid = nextId('fc')
      const item = {
        arguments: JSON.stringify(reply.input),
        call_id: reply.id ?? nextId('call'),
        id: fid,
        name: reply.name,
        status: 'completed',
        type: 'function_call',
      }
      ev('response.output_item.added', {item: {...item, arguments: '', status: 'in_progress'}, output_index: idx})
      ev('response.function_call_arguments.delta', {delta: item.arguments, item_id: fid, output_index: idx})
      ev('response.function_call_arguments.done', {arguments: item.arguments, item_id: fid, output_index: idx})
      ev('response.output_item.done', {item, output_index: idx})
      output.push(item)
    }
    ev('response.completed', {
      response: {
        ...base,
        output,
        status: 'completed',
        usage: {
          input_tokens: 100,
          input_tokens_details: {cached_tokens: 0},
          output_tokens: 12,
          output_tokens_details: {reasoning_tokens: 0},
          total_tokens: 112,
        },
      },
    })
    res.end()
  },
}
