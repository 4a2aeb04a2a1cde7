#!/usr/bin/env node
// The drift watch: install the newest published version of each agent CLI into a cache folder
// and run the conformance suite against them, one agent file at a time, then print the table
// with the versions (scripts/conformance-table.mjs --latest).
//   npm run conformance:latest                 every agent
//   npm run conformance:latest -- pi codex     some of them
//   CONFORMANCE_FILTER='plain|kill9' …         only the scenarios whose name matches (vitest -t)
// The folder is $CAST_CONFORMANCE_LATEST_DIR, else ~/.cache/cast-conformance-latest; the suite
// finds the CLIs there through CAST_CONFORMANCE_MODULES (test/conformance/harness/agent-bin.ts).
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const PACKAGES = {
  claude_code: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  copilot: '@github/copilot',
  gemini: '@google/gemini-cli',
  opencode: 'opencode-ai',
  pi: '@mariozechner/pi-coding-agent',
}
const dir = path.resolve(process.env.CAST_CONFORMANCE_LATEST_DIR || path.join(os.homedir(), '.cache', 'cast-conformance-latest'))
const wanted = process.argv.slice(2)
for (const a of wanted) {
  if (!(a in PACKAGES)) {
    console.error(`conformance:latest: no agent ${a} (one of ${Object.keys(PACKAGES).join(', ')})`)
    process.exit(2)
  }
}
const agents = wanted.length > 0 ? wanted : Object.keys(PACKAGES)
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

fs.mkdirSync(dir, {recursive: true})
const manifest = path.join(dir, 'package.json')
if (!fs.existsSync(manifest)) fs.writeFileSync(manifest, JSON.stringify({description: 'cast conformance:latest', private: true}, null, 2))
const installed = (pkg) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

// The newest version of each package, installed when the folder holds another one.
const specs = []
for (const a of agents) {
  const pkg = PACKAGES[a]
  const v = spawnSync(npm, ['view', pkg, 'version'], {encoding: 'utf8'})
  const latest = v.status === 0 ? v.stdout.trim() : null
  if (latest === null) {
    console.error(`conformance:latest: npm view ${pkg} failed: ${(v.stderr || '').trim().split('\n').at(-1)}`)
    process.exit(1)
  }
  console.log(`${a}: ${pkg} ${latest}${installed(pkg) === latest ? ' (already installed)' : ''}`)
  if (installed(pkg) !== latest) specs.push(`${pkg}@${latest}`)
}
if (specs.length > 0) {
  const r = spawnSync(npm, ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', ...specs], {stdio: 'inherit'})
  if (r.status !== 0) process.exit(r.status ?? 1)
}

// One agent file at a time (each runs several CLIs at once inside): the machine stays usable.
const out = path.join(root, 'test', 'conformance', '.results')
fs.mkdirSync(out, {recursive: true})
for (const f of fs.readdirSync(out)) if (/^latest-.+\.json$/.test(f) && agents.includes(f.slice(7, -5))) fs.rmSync(path.join(out, f))
const filter = process.env.CONFORMANCE_FILTER ? ['-t', process.env.CONFORMANCE_FILTER] : []
for (const a of agents) {
  console.log(`\n== ${a} ${installed(PACKAGES[a])}`)
  spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '-c',
      'vitest.conformance.config.ts',
      `test/conformance/${a}.test.ts`,
      ...filter,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${path.join(out, `latest-${a}.json`)}`,
    ],
    {cwd: root, env: {...process.env, CAST_CONFORMANCE_MODULES: path.join(dir, 'node_modules')}, stdio: 'inherit'},
  )
}

const table = spawnSync(process.execPath, [path.join(root, 'scripts', 'conformance-table.mjs'), '--latest', dir], {stdio: 'inherit'})
process.exit(table.status ?? 1)
