#!/usr/bin/env node
// A settle classifier for cast, built on `claude -p` with a small model (issue 14).
//
// cast runs it once per settled turn that ended without a declaration, with one JSON object on
// stdin: {agent, session_id, native_id, cwd, title, turn_index, prompt, last_assistant_message,
// tools}. It prints {"verdict":"delivered"|"needs_input"|"blocked","why":"…"}.
//
// In ~/.config/cast/config.json:
//   "settle_classifier": {"command": ["node", "/path/to/cast/examples/settle-classifier.mjs"], "timeout": "30s"}
//
// Environment: CAST_CLASSIFIER_MODEL (default claude-haiku-4-5), CAST_CLASSIFIER_CLAUDE (the
// claude binary, default `claude` on PATH). Claude Code needs its usual credentials
// (ANTHROPIC_API_KEY, or a login). The run uses a throwaway CLAUDE_CONFIG_DIR and folder, so it
// leaves no session of its own for cast to list (and judge), and runs no hooks.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const MODEL = process.env.CAST_CLASSIFIER_MODEL || 'claude-haiku-4-5'
const CLAUDE = process.env.CAST_CLASSIFIER_CLAUDE || 'claude'

const readStdin = async () => {
  const chunks = []
  for await (const c of process.stdin) chunks.push(c)
  return Buffer.concat(chunks).toString('utf8')
}

const clip = (s, n) => (typeof s === 'string' ? (s.length > n ? `${s.slice(0, n)}…` : s) : '')

const input = JSON.parse((await readStdin()) || '{}')
const prompt = `You are cast's settle classifier. A coding agent's turn just ended and it did not say who acts next. Judge from the user's request and the agent's last message:
- "delivered": the agent finished what was asked; nothing needs the user except reading the result.
- "needs_input": the agent asks the user something, offers options, or waits for a reply.
- "blocked": the agent could not go on without the user acting (credentials, a decision, an error it cannot fix).
Answer with one line of JSON and nothing else: {"verdict":"delivered|needs_input|blocked","why":"<one short sentence>"}

Agent: ${input.agent ?? '?'}   Title: ${clip(input.title, 200)}   Tools used this turn: ${(input.tools ?? []).join(', ') || 'none'}
User's request:
${clip(input.prompt, 4000) || '(unknown)'}
Agent's last message:
${clip(input.last_assistant_message, 8000) || '(none)'}`

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-classifier-'))
const env = {...process.env, CLAUDE_CONFIG_DIR: path.join(scratch, 'config'), DISABLE_AUTOUPDATER: '1'}
const child = spawn(CLAUDE, ['-p', '--model', MODEL, '--output-format', 'text', '--max-turns', '1'], {
  cwd: scratch,
  env,
  stdio: ['pipe', 'pipe', 'pipe'],
})
let out = ''
let err = ''
child.stdout.on('data', (d) => (out += d))
child.stderr.on('data', (d) => (err += d))
child.stdin.end(prompt)
const code = await new Promise((resolve) => {
  child.on('error', (e) => {
    err += e.message
    resolve(127)
  })
  child.on('close', (c) => resolve(c ?? 1))
})
fs.rmSync(scratch, {force: true, recursive: true})
if (code !== 0) {
  process.stderr.write(`claude -p exited ${code}: ${err.trim().split('\n')[0] ?? ''}\n`)
  process.exit(1)
}

const m = /\{[^{}]*"verdict"[^{}]*\}/.exec(out)
let answer = null
try {
  answer = m ? JSON.parse(m[0]) : null
} catch {
  answer = null
}

if (!answer || !['delivered', 'needs_input', 'blocked'].includes(answer.verdict)) {
  process.stderr.write(`no verdict in the model's answer: ${JSON.stringify(out.trim().slice(0, 200))}\n`)
  process.exit(1)
}

process.stdout.write(`${JSON.stringify({verdict: answer.verdict, why: String(answer.why ?? '').slice(0, 300)})}\n`)
