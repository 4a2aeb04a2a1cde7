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
 *   "tool: COMMAND"                   → a Bash tool call that needs permission: the registry says
 *                                       `waitingFor: "permission prompt"` (not with
 *                                       FAKE_SILENT_DIALOG=1: then only the screen shows it) and
 *                                       the terminal shows Claude Code's dialog, read key by key
 *                                       (raw mode): 1 or Enter approves (as in Claude Code 2.1.328,
 *                                       Enter APPROVES), 2 approves always, 3 denies and reads a
 *                                       note line, Esc denies; other keys are ignored. The screen is
 *                                       cleared when the dialog closes.
 *   anything else                     → a plain reply ("Done: …"): the turn settles
 *
 * Arguments after `--` are the prompt, whatever they look like.
 * FAKE_DELAY_MS (default 300) is how long it "thinks" before replying.
 */
import {spawn} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const argv = process.argv.slice(2)
let sessionId = null
let resume = false
let headless = false
const words = []
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]
  if (a === '--') {
    words.push(...argv.slice(i + 1))
    break
  } else if (a === '--session-id') sessionId = argv[++i]
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
    } catch {
      // a torn or foreign line: look at the one before
    }
  }
}

/** The open AskUserQuestion, if any: its tool_use id and question. */
let openQuestion = null

function append(line) {
  const uuid = randomUUID()
  const rec = {
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId,
    version: '2.1.100',
    gitBranch: 'main',
    uuid,
    timestamp: new Date().toISOString(),
    ...line,
  }
  fs.appendFileSync(transcript, JSON.stringify(rec) + '\n')
  parent = uuid
}

function setStatus(status, waitingFor) {
  const now = Date.now()
  const rec = {
    pid: process.pid,
    sessionId,
    cwd,
    startedAt,
    version: '2.1.100',
    kind: headless ? 'print' : 'interactive',
    entrypoint: 'cli',
    status,
    updatedAt: now,
    statusUpdatedAt: now,
  }
  if (waitingFor) rec.waitingFor = waitingFor
  const tmp = `${registry}.${process.pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(rec))
  fs.renameSync(tmp, registry)
}

function assistant(content) {
  append({
    type: 'assistant',
    requestId: `req_${randomUUID().slice(0, 8)}`,
    message: {
      id: `msg_${randomUUID().slice(0, 12)}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: {input_tokens: 10, output_tokens: 5},
    },
  })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function leave(code = 0) {
  try {
    fs.rmSync(registry, {force: true})
  } catch {
    // exiting anyway: a registry file left behind is what a crashed claude leaves too
  }
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
    append({
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: q.id,
            content: `User has answered your questions: "${q.question}"="${text}". You can now continue with the user's answers in mind.`,
          },
        ],
      },
      toolUseResult: {answers: {[q.question]: text}},
    })
  } else {
    append({type: 'user', message: {role: 'user', content: text}})
  }

  setStatus('busy')
  await sleep(delay)
  const tool = /^tool:\s*(.+)$/.exec(text)
  if (tool) return openDialog(tool[1])
  if (/\bask\b/i.test(text)) {
    const id = `toolu_${randomUUID().slice(0, 12)}`
    const question = `Which way should I go on: ${text}?`
    assistant([
      {
        type: 'tool_use',
        id,
        name: 'AskUserQuestion',
        input: {
          questions: [
            {question, header: 'Choice', options: menuOptions(), multiSelect: false},
            ...(process.env.FAKE_MULTI_ASK === '1'
              ? [{question: SIZES_Q, header: 'Sizes', options: sizeOptions(), multiSelect: true}]
              : []),
          ],
        },
      },
    ])
    openQuestion = {id, question}
    setStatus('waiting', 'dialog open')
    if (process.env.FAKE_MULTI_ASK === '1') return drawMultiAsk(question)
    if (process.env.FAKE_QUESTION_MENU === '1') return openMenu(question)
    process.stdout.write(`? ${question}\n`)
    return
  }

  assistant([{type: 'text', text: `Done: ${text}`}])
  append({type: 'system', subtype: 'turn_duration', durationMs: delay, messageCount: 2, isMeta: false, level: 'info'})
  setStatus('idle')
  process.stdout.write(`< Done: ${text}\n`)
  if (/\bbye\b/i.test(text)) leave(0)
}

/**
 * FAKE_QUESTION_MENU=1: the question is Claude Code's menu (docs/agents/claude-code.md "Question
 * dialog"): options with descriptions (FAKE_OPTION_B names the second), `❯` on the current one,
 * ↓/↑ move it, Enter picks it (the answer is its label), Esc cancels. Without it: A and B, and
 * the next line typed answers.
 */
function menuOptions() {
  if (process.env.FAKE_QUESTION_MENU !== '1') return [{label: 'A'}, {label: 'B'}]
  return [
    {label: 'Red', description: 'the warm one'},
    {label: process.env.FAKE_OPTION_B ?? 'Blue', description: 'the cool one'},
  ]
}

/**
 * FAKE_MULTI_ASK=1: two questions in one AskUserQuestion, the second a multiple choice whose
 * second option is FAKE_OPTION_B. The screen is Claude Code 2.1.328's first tab as it draws it
 * (docs/agents/claude-code.md "Several questions"); no key answers it here.
 */
const SIZES_Q = 'Which sizes should it come in?'
function sizeOptions() {
  return [
    {label: 'Small', description: 'for phones'},
    {label: process.env.FAKE_OPTION_B ?? 'Large', description: 'for desks'},
  ]
}

function drawMultiAsk(question) {
  clear()
  let out = `←  ☐ Choice  ☐ Sizes  ✔ Submit  →\n\n${question}\n\n`
  menuOptions().forEach((o, i) => (out += `${i === 0 ? '❯' : ' '} ${i + 1}. ${o.label}\n     ${o.description ?? ''}\n`))
  out += `  ${menuOptions().length + 1}. Type something.\n  ${menuOptions().length + 2}. Chat about this\n\n`
  process.stdout.write(out + 'Enter to select · Tab/Arrow keys to navigate · Esc to cancel\n')
}

let menu = null

function drawMenu() {
  clear()
  const rows = [...menu.options.map((o) => o.label), 'Type something.', 'Chat about this']
  let out = ` ☐ Choice\n\n${menu.question}\n`
  rows.forEach((label, i) => {
    out += `${i === menu.cursor ? '❯' : ' '} ${i + 1}. ${label}\n`
    if (menu.options[i]?.description) out += `     ${menu.options[i].description}\n`
  })
  process.stdout.write(out + '\nEnter to select · ↑/↓ to navigate · Esc to cancel\n')
}

function openMenu(question) {
  menu = {cursor: 0, options: menuOptions(), question}
  if (process.stdin.isTTY) process.stdin.setRawMode(true)
  drawMenu()
}

/** One key (or arrow sequence) while the menu is open. */
function menuKey(key) {
  if (key === '\x1b[B' || key === '\x1b[A') {
    const n = menu.options.length + 2
    menu.cursor = (menu.cursor + (key === '\x1b[B' ? 1 : n - 1)) % n
    return drawMenu()
  }
  if (key !== '\r' && key !== '\n') return
  const picked = menu.options[menu.cursor]
  if (!picked) return
  menu = null
  if (process.stdin.isTTY) process.stdin.setRawMode(false)
  clear()
  chain = chain.then(() => handle(picked.label)).then(pump)
}

/** The open permission dialog: its tool_use id and command; and a deny waiting for its note. */
let dialog = null
let noteFor = null

function openDialog(command) {
  const id = `toolu_${randomUUID().slice(0, 12)}`
  assistant([{type: 'tool_use', id, name: 'Bash', input: {command, description: 'Run it'}}])
  dialog = {command, id}
  if (process.env.FAKE_SILENT_DIALOG !== '1') setStatus('waiting', 'permission prompt')
  process.stdout.write(
    `Bash command\n  ${command}\n  Run it\n\nDo you want to proceed?\n❯ 1. Yes\n  2. Yes, and don't ask again for this command\n  3. No, and tell Claude what to do differently (esc)\n`,
  )
  if (process.stdin.isTTY) process.stdin.setRawMode(true)
}

const clear = () => process.stdout.write('\x1b[2J\x1b[3J\x1b[H')

function closeDialog() {
  dialog = null
  if (process.stdin.isTTY) process.stdin.setRawMode(false)
  clear()
}

function settle(reply) {
  if (reply) assistant([{type: 'text', text: reply}])
  append({type: 'system', subtype: 'turn_duration', durationMs: delay, messageCount: 2, isMeta: false, level: 'info'})
  setStatus('idle')
}

/** One key while the dialog is open. */
function dialogKey(key) {
  const d = dialog
  if (key === '1' || key === '2' || key === '\r' || key === '\n') {
    closeDialog()
    const always = key === '2'
    append({
      type: 'user',
      message: {role: 'user', content: [{type: 'tool_result', tool_use_id: d.id, content: `ran ${d.command}`}]},
      permissionDecision: {decision: 'accept', grantScope: always ? 'always' : 'once'},
    })
    settle(`Ran: ${d.command}`)
    process.stdout.write(`< Ran: ${d.command}${always ? ' (always allowed)' : ''}\n`)
  } else if (key === '\x1b') {
    closeDialog()
    append({
      type: 'user',
      message: {role: 'user', content: [{type: 'tool_result', tool_use_id: d.id, content: 'User rejected tool use', is_error: true}]},
      toolDenialKind: 'user-rejected',
    })
    append({type: 'user', message: {role: 'user', content: '[Request interrupted by user for tool use]'}})
    setStatus('idle')
    process.stdout.write('< Denied\n')
  } else if (key === '3') {
    closeDialog()
    noteFor = d
    process.stdout.write('Tell Claude what to do instead:\n')
  }
}

function noteLine(text) {
  const d = noteFor
  noteFor = null
  append({
    type: 'user',
    message: {
      role: 'user',
      content: [{type: 'tool_result', tool_use_id: d.id, content: `User rejected tool use: ${text}`, is_error: true}],
    },
    toolDenialKind: 'user-rejected',
  })
  append({type: 'user', message: {role: 'user', content: text}})
  settle(`Understood: ${text}`)
  process.stdout.write(`< Denied: ${text}\n`)
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
// While a dialog is open the terminal is in raw mode and every key is read on its own.
let chain = prompt ? handle(prompt) : Promise.resolve()
let buf = ''
function pump() {
  for (;;) {
    if (dialog || menu) {
      if (buf === '') return
      if (buf.startsWith('\x1b[')) {
        // An escape sequence (an arrow key, a paste marker): the menu takes ↓ and ↑; the dialog none.
        // eslint-disable-next-line no-control-regex -- a terminal escape sequence starts with ESC (\x1b)
        const m = /^\x1b\[[0-9;?]*[ -/]*[@-~]/.exec(buf)
        if (!m) return
        buf = buf.slice(m[0].length)
        if (menu) menuKey(m[0])
        continue
      }

      if (menu) {
        const key = buf[0]
        buf = buf.slice(1)
        menuKey(key)
        continue
      }

      const key = buf[0]
      buf = buf.slice(1)
      dialogKey(key)
      continue
    }

    const i = buf.search(/[\r\n]/)
    if (i === -1) return
    const text = buf.slice(0, i)
    buf = buf.slice(i + 1)
    if (text.trim() === '') continue
    if (noteFor) noteLine(text)
    else chain = chain.then(() => handle(text)).then(pump)
  }
}

process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  buf += chunk
  pump()
})
