#!/usr/bin/env node
// `npm run conformance:setup`: install the six agent CLIs the conformance suite drives, at the
// versions conformance/package-lock.json pins, into a cache folder outside the checkout, so that
// `npm ci` of the project does not download them (the suite is the only thing that runs them).
// The folder is $CAST_CONFORMANCE_DIR, else ~/.cache/cast-conformance; the suite finds the CLIs in
// its node_modules (test/conformance/harness/agent-bin.ts, the same rule), as do
// scripts/conformance-table.mjs and scripts/conformance-latest.mjs (for the pinned versions).
// A folder already installed from the same lock is left as it is (a stamp holds the lock's hash).
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {conformanceDir} from './conformance-dir.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dir = conformanceDir()
const lock = fs.readFileSync(path.join(root, 'conformance', 'package-lock.json'))
const hash = createHash('sha256')
  .update(fs.readFileSync(path.join(root, 'conformance', 'package.json')))
  .update(lock)
  .digest('hex')
const stamp = path.join(dir, 'node_modules', '.cast-conformance-lock')
let had = null
try {
  had = fs.readFileSync(stamp, 'utf8').trim()
} catch {
  // Not installed yet.
}

if (had === hash) {
  console.log(`conformance:setup: ${dir} already holds the pinned CLIs`)
  process.exit(0)
}

fs.mkdirSync(dir, {recursive: true})
for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(root, 'conformance', f), path.join(dir, f))
const started = Date.now()
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {cwd: dir, stdio: 'inherit'})
if (r.status !== 0) {
  console.error(`conformance:setup: npm ci in ${dir} exited ${r.status ?? r.signal}`)
  process.exit(r.status ?? 1)
}

fs.writeFileSync(stamp, `${hash}\n`)
console.log(`conformance:setup: the pinned CLIs installed in ${dir} (${Math.round((Date.now() - started) / 1000)} s)`)
