#!/usr/bin/env node
// Print the conformance table (agent × scenario) from the suite's JSON report:
// test/conformance/.results/report.json, written by `npm run conformance`.
// A test is named "<scenario>: <what it checks>" inside a describe named after the agent.
// Exit 1 when the report is missing or any test failed, so CI cannot pass on a silent gap.
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const report = path.join(root, 'test/conformance/.results/report.json')
if (!fs.existsSync(report)) {
  console.error(`conformance: no report at ${path.relative(root, report)}`)
  process.exit(1)
}
const data = JSON.parse(fs.readFileSync(report, 'utf8'))
const PACKAGES = {
  claude_code: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  copilot: '@github/copilot',
  gemini: '@google/gemini-cli',
  opencode: 'opencode-ai',
  pi: '@mariozechner/pi-coding-agent',
}
const version = (agent) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', PACKAGES[agent], 'package.json'), 'utf8')).version
  } catch {
    return '?'
  }
}
const cells = new Map() // agent -> scenario -> [statuses]
const scenarios = []
let failed = 0
for (const file of data.testResults ?? []) {
  for (const t of file.assertionResults ?? []) {
    const agent = t.ancestorTitles?.[0] ?? path.basename(file.name, '.test.ts')
    const scenario = String(t.title).split(':')[0].trim()
    if (!scenarios.includes(scenario)) scenarios.push(scenario)
    if (!cells.has(agent)) cells.set(agent, new Map())
    const row = cells.get(agent)
    if (!row.has(scenario)) row.set(scenario, [])
    row.get(scenario).push(t.status)
    if (t.status === 'failed') failed++
  }
}
const mark = (st) =>
  !st ? '–' : st.includes('failed') ? '✗' : st.every((s) => s === 'passed') ? '✓' : st.some((s) => s === 'passed') ? '✓' : 'n/a'
const agents = [...cells.keys()]
const lines = []
lines.push(`| scenario | ${agents.map((a) => `${a} ${version(a)}`).join(' | ')} |`)
lines.push(`|---|${agents.map(() => ':-:').join('|')}|`)
for (const s of scenarios) lines.push(`| ${s} | ${agents.map((a) => mark(cells.get(a).get(s))).join(' | ')} |`)
console.log(lines.join('\n'))
console.log(
  `\n${data.numPassedTests ?? '?'} passed, ${data.numFailedTests ?? '?'} failed, ${data.numPendingTests ?? 0} skipped (✓ pass, ✗ fail, n/a the CLI cannot produce the case, – not run)`,
)
process.exit(failed > 0 || data.success === false ? 1 : 0)
