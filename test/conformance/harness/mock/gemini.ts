/**
 * Gemini (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, `:generateContent`,
 * `:countTokens`): what the Gemini CLI speaks. A non-streaming generateContent is a side
 * request (next-speaker checks, summaries); token counts are answered directly.
 */
import type {Protocol, Reply} from './server.js'
import {sse, sseHead, streamText} from './server.js'

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
}

export const gemini: Protocol = {
  decode(_method, path, body) {
    if (/:countTokens/.test(path)) return {direct: {totalTokens: 100}}
    const contents: any[] = Array.isArray(body?.contents) ? body.contents : []
    const last = contents.at(-1)
    const parts: any[] = Array.isArray(last?.parts) ? last.parts : []
    const toolResults = last?.role === 'user' ? parts.filter((p) => p?.functionResponse).length : 0
    const lastUser = [...contents]
      .reverse()
      .find((c) => c?.role === 'user' && (c.parts ?? []).some((p: any) => typeof p?.text === 'string'))
    const text = (lastUser?.parts ?? []).map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('\n')
    const stream = /:streamGenerateContent/.test(path)
    return {lastUserText: text, side: !stream, stream, toolResults}
  },
  matches: (method, path) => method === 'POST' && /\/models\/[^/:]+:(streamGenerateContent|generateContent|countTokens)/.test(path),
  name: 'gemini',
  sideReply: (req) => {
    // The next-speaker check asks for JSON; answer that the user speaks next.
    const wantsJson =
      req.body?.generationConfig?.responseMimeType === 'application/json' ||
      req.body?.generationConfig?.responseJsonSchema ||
      req.body?.generationConfig?.responseSchema
    return {kind: 'text', text: wantsJson ? JSON.stringify({next_speaker: 'user', reasoning: 'mock'}) : 'Mock title'}
  },
  async write(reply: Reply, req, res, model) {
    if (reply.kind === 'http') {
      res.writeHead(reply.status, {'content-type': 'application/json', ...reply.headers})
      res.end(
        reply.body ??
          JSON.stringify({error: {code: reply.status, message: `mock ${reply.status}`, status: STATUS[reply.status] ?? 'INTERNAL'}}),
      )
      return
    }
    const usage = {candidatesTokenCount: 12, promptTokenCount: 100, totalTokenCount: 112}
    const cand = (parts: unknown[], finish?: string): unknown => ({
      candidates: [{content: {parts, role: 'model'}, index: 0, ...(finish ? {finishReason: finish} : {})}],
      modelVersion: model,
      usageMetadata: usage,
    })
    if (!req.stream) {
      const parts =
        reply.kind === 'tool' ? [{functionCall: {args: reply.input, name: reply.name}}] : [{text: 'text' in reply ? reply.text : ''}]
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify(cand(parts, 'STOP')))
      return
    }
    sseHead(res)
    if (reply.kind === 'stall') {
      if (reply.text) sse(res, cand([{text: reply.text}]))
      return
    }
    if (reply.kind === 'truncated') {
      res.write(`data: {"candidates":[{"content":{"parts":[{"text":${JSON.stringify(reply.text).slice(0, 6)}`)
      await new Promise((r) => setTimeout(r, 50))
      res.destroy()
      return
    }
    if (reply.kind === 'text') {
      const parts: string[] = []
      await streamText(res, reply, (p) => parts.push(p))
      for (const [i, p] of parts.entries()) sse(res, cand([{text: p}], i === parts.length - 1 ? 'STOP' : undefined))
    }
    if (reply.kind === 'garbage') {
      const half = Math.ceil(reply.text.length / 2)
      sse(res, cand([{text: reply.text.slice(0, half)}]))
      res.write('data: {not json at all\n\n')
      sse(res, cand([{text: reply.text.slice(half)}], 'STOP'))
    }
    if (reply.kind === 'tool') {
      const parts: unknown[] = []
      if (reply.text) parts.push({text: reply.text})
      parts.push({functionCall: {args: reply.input, name: reply.name}})
      sse(res, cand(parts, 'STOP'))
    }
    res.end()
  },
}
