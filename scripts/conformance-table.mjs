#!/usr/bin/env node
// Print the conformance table (agent × scenario) from the suite's JSON report(s).
//   node scripts/conformance-table.mjs                 test/conformance/.results/report.json
//                                                      (`npm run conformance`), the pinned CLIs
//   node scripts/conformance-table.mjs --latest DIR    the reports of `npm run conformance:latest`
//                                                      (.results/latest-<agent>.json), the CLIs
//                                                      installed in DIR/node_modules, with a
//                                                      version column against the pinned ones
// A test is named "<scenario>: <what it checks>" inside a describe named after the agent.
// Exit 1 when a report is missing or any test failed, so CI cannot pass on a silent gap.
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {conformanceDir} from './conformance-dir.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const results = path.join(root, 'test/conformance/.results')
const latestAt = process.argv.indexOf('--latest')
const latestDir = latestAt >= 0 ? process.argv[latestAt + 1] : null
const PACKAGES = {
  claude_code: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  copilot: '@github/copilot',
  gemini: '@google/gemini-cli',
  opencode: 'opencode-ai',
  pi: '@mariozechner/pi-coding-agent',
}
const versionIn = (modules, agent) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(modules, PACKAGES[agent], 'package.json'), 'utf8')).version
  } catch {
    return '?'
  }
}
// The pinned CLIs: where `npm run conformance:setup` installed them (scripts/conformance-dir.mjs).
const pinned = (agent) => versionIn(process.env.CAST_CONFORMANCE_MODULES || path.join(conformanceDir(), 'node_modules'), agent)
const tested = (agent) => (latestDir ? versionIn(path.join(latestDir, 'node_modules'), agent) : pinned(agent))

const reports = latestDir
  ? fs.existsSync(results)
    ? fs
        .readdirSync(results)
        .filter((f) => /^latest-.+\.json$/.test(f))
        .map((f) => path.join(results, f))
    : []
  : [path.join(results, 'report.json')].filter((f) => fs.existsSync(f))
if (reports.length === 0) {
  console.error(`conformance: no report in ${path.relative(root, results)}`)
  process.exit(1)
}

const cells = new Map() // agent -> scenario -> [statuses]
const scenarios = []
let failed = 0
let passed = 0
let skipped = 0
let success = true
const failures = new Map() // agent -> [scenario]
for (const report of reports) {
  const data = JSON.parse(fs.readFileSync(report, 'utf8'))
  if (data.success === false) success = false
  skipped += data.numPendingTests ?? 0
  for (const file of data.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      const agent = t.ancestorTitles?.[0] ?? path.basename(file.name, '.test.ts')
      const scenario = String(t.title).split(':')[0].trim()
      if (!scenarios.includes(scenario)) scenarios.push(scenario)
      if (!cells.has(agent)) cells.set(agent, new Map())
      const row = cells.get(agent)
      if (!row.has(scenario)) row.set(scenario, [])
      row.get(scenario).push(t.status)
      if (t.status === 'passed') passed++
      if (t.status === 'failed') {
        failed++
        failures.set(agent, [...(failures.get(agent) ?? []), scenario])
      }
    }
  }
}

const mark = (st) =>
  !st ? '–' : st.includes('failed') ? '✗' : st.every((s) => s === 'passed') ? '✓' : st.some((s) => s === 'passed') ? '✓' : 'n/a'
const agents = [...cells.keys()]
const lines = []
if (latestDir) {
  lines.push('| agent | pinned | tested | passed | failed | failing scenarios |', '|---|---|---|--:|--:|---|')
  for (const a of agents) {
    const sts = [...cells.get(a).values()].flat()
    const f = [...new Set(failures.get(a) ?? [])]
    lines.push(
      `| ${a} | ${pinned(a)} | ${tested(a)}${tested(a) === pinned(a) ? '' : ' (newer)'} | ${sts.filter((s) => s === 'passed').length} | ${sts.filter((s) => s === 'failed').length} | ${f.join(', ') || '–'} |`,
    )
  }
  lines.push('')
}
lines.push(`| scenario | ${agents.map((a) => `${a} ${tested(a)}`).join(' | ')} |`)
lines.push(`|---|${agents.map(() => ':-:').join('|')}|`)
for (const s of scenarios) lines.push(`| ${s} | ${agents.map((a) => mark(cells.get(a).get(s))).join(' | ')} |`)
console.log(lines.join('\n'))
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped (✓ pass, ✗ fail, n/a the CLI cannot produce the case, – not run)`)
process.exit(failed > 0 || !success ? 1 : 0)
