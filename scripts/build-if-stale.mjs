#!/usr/bin/env node
// `npm pack`'s prepack: build only when the build is missing or older than what it is made from
// (src/, package.json, tsconfig*.json, scripts/bundle-fast.mjs), so a pack right after
// `npm run build` packs that build as it is instead of making it again.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const built = (() => {
  try {
    return fs.statSync(path.join(root, 'oclif.manifest.json')).mtimeMs
  } catch {
    return null
  }
})()

function newest(p) {
  const st = fs.statSync(p)
  if (!st.isDirectory()) return st.mtimeMs
  let t = 0
  for (const name of fs.readdirSync(p)) t = Math.max(t, newest(path.join(p, name)))
  return t
}

const sources = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.client.json', 'scripts/bundle-fast.mjs'].map(
  (f) => path.join(root, f),
)
const stale = built === null || !fs.existsSync(path.join(root, 'dist')) || sources.some((f) => fs.existsSync(f) && newest(f) > built)
if (!stale) {
  console.error('prepack: dist/ and oclif.manifest.json are newer than src/: packed as built')
  process.exit(0)
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const r = spawnSync(npm, ['run', 'build'], {cwd: root, stdio: 'inherit'})
process.exit(r.status ?? 1)
