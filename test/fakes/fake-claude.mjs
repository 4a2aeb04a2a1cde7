#!/usr/bin/env node
/**
 * A stand-in for the `claude` CLI, for tests that need a real agent process: it takes the same
 * arguments cast passes (`--session-id ID PROMPT`, `--resume ID -p PROMPT`, `-p`), writes a
 * real-format Claude Code transcript (`$CLAUDE_CONFIG_DIR|~/.claude/projects/<enc-cwd>/<ID>.jsonl`)
 * and process registry (`…/sessions/<pid>.json`), and reads its terminal: every line it receives
 * becomes a user turn followed by an assistant reply.
 *
 *   a line containing the word "ask"  → the reply is an AskUserQuestion (the session waits on a question)
 *   the next line after a question    → answers it (a tool_result), then a reply
 *   a line containing "bye"           → a reply, then a clean exit (registry removed)
 *   "!COMMAND"                        → runs COMMAND through sh as a child process (like Claude
 *                                       Code's bash mode) and prints its output and exit code
 *   anything else                     → a plain reply ("Done: …"): the turn settles
 *
 * FAKE_DELAY_MS (default 300) is how long it "thinks" before replying.
 */
import {spawn} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'

const argv = process.argv.slice(2)
let sessionId = null
let resume = false
let headless = false
const words = []
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]
  if (a === '--session-id') sessionId = argv[++i]
  else if (a === '--resume' || a === '-r') {
    sessionId = argv[++i]
    resume = true
  } else if (a === '-p' || a === '--print') headless = true
  else words.push(a)
}

const prompt = words.join(' ')
sessionId ??= randomUUID()
const delay = Number(process.env.FAKE_DELAY_MS ?? 300)
const base = process.env.CLAUDE_CONFIG_DIR || path.join(process.env.HOME || os.homedir(), '.claude')
const cwd = process.cwd()
const transcript = path.join(base, 'projects', cwd.replace(/[^a-zA-Z0-9-]/g, '-'), `${sessionId}.jsonl`)
const registry = path.join(base, 'sessions', `${process.pid}.json`)
const startedAt = Date.now()
fs.mkdirSync(path.dirname(transcript), {recursive: true})
fs.mkdirSync(path.dirname(registry), {recursive: true})

let parent = null
if (resume && fs.existsSync(transcript)) {
  const lines = fs.readFileSync(transcript, 'utf8').trim().split('\n')
  for (const l of lines.reverse()) {
    try {
      parent = JSON.parse(l).uuid ?? null
      if (parent) break
    } catch {}
  }
}

/** The open AskUserQuestion, if any: its tool_use id and question. */
let openQuestion = null

function append(line) {
  const uuid = randomUUID()
  const rec = {parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.100', gitBranch: 'main', uuid, timestamp: new Date().toISOString(), ...line}
  fs.appendFileSync(transcript, JSON.stringify(rec) + '\n')
  parent = uuid
}

function setStatus(status, waitingFor) {
  const now = Date.now()
  const rec = {pid: process.pid, sessionId, cwd, startedAt, version: '2.1.100', kind: headless ? 'print' : 'interactive', entrypoint: 'cli', status, updatedAt: now, statusUpdatedAt: now}
  if (waitingFor) rec.waitingFor = waitingFor
  const tmp = `${registry}.${process.pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(rec))
  fs.renameSync(tmp, registry)
}

function assistant(content) {
  append({type: 'assistant', requestId: `req_${randomUUID().slice(0, 8)}`, message: {id: `msg_${randomUUID().slice(0, 12)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null, usage: {input_tokens: 10, output_tokens: 5}}})
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function leave(code = 0) {
  try {
    fs.rmSync(registry, {force: true})
  } catch {}
  process.exit(code)
}

async function runBash(command) {
  const child = spawn('sh', ['-c', command], {stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  child.stdout.on('data', (c) => (out += c))
  child.stderr.on('data', (c) => (out += c))
  const code = await new Promise((resolve) => child.on('close', resolve))
  process.stdout.write(`${out}[bash exit ${code}]\n`)
}

async function handle(text) {
  if (text.startsWith('!')) return runBash(text.slice(1))
  process.stdout.write(`> ${text}\n`)
  if (openQuestion) {
    const q = openQuestion
    openQuestion = null
    append({type: 'user', message: {role: 'user', content: [{type: 'tool_result', tool_use_id: q.id, content: `User has answered your questions: "${q.question}"="${text}". You can now continue with the user's answers in mind.`}]}, toolUseResult: {answers: {[q.question]: text}}})
  } else {
    append({type: 'user', message: {role: 'user', content: text}})
  }

  setStatus('busy')
  await sleep(delay)
  if (/\bask\b/i.test(text)) {
    const id = `toolu_${randomUUID().slice(0, 12)}`
    const question = `Which way should I go on: ${text}?`
    assistant([{type: 'tool_use', id, name: 'AskUserQuestion', input: {questions: [{question, header: 'Choice', options: [{label: 'A'}, {label: 'B'}], multiSelect: false}]}}])
    openQuestion = {id, question}
    setStatus('waiting', 'dialog open')
    process.stdout.write(`? ${question}\n`)
    return
  }

  assistant([{type: 'text', text: `Done: ${text}`}])
  append({type: 'system', subtype: 'turn_duration', durationMs: delay, messageCount: 2, isMeta: false, level: 'info'})
  setStatus('idle')
  process.stdout.write(`< Done: ${text}\n`)
  if (/\bbye\b/i.test(text)) leave(0)
}

process.on('SIGTERM', () => leave(143))
process.on('SIGHUP', () => leave(129))
process.on('SIGINT', () => leave(130))

setStatus('idle')
if (headless) {
  if (prompt) await handle(prompt)
  leave(0)
}

// One turn at a time: lines that arrive while busy wait their turn, as a real prompt queue would.
let chain = prompt ? handle(prompt) : Promise.resolve()
const rl = readline.createInterface({input: process.stdin, terminal: false})
rl.on('line', (line) => {
  const text = line.replace(/\r$/, '')
  if (text.trim() === '') return
  chain = chain.then(() => handle(text))
})
rl.on('close', () => chain.then(() => leave(0)))
