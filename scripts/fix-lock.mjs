// Put back the platform-bound optional entries of opencode-ai that npm drops from the lock when
// the registry lacks those platforms (docs/agents.md, "Installing the CLIs"): npm ci refuses the lock otherwise.
// Keys are sorted as npm sorts them (String#localeCompare with the 'en' locale, so `string_decoder`
// precedes `string-width`), so a later `npm install` leaves the file byte for byte as it is.
import {readFileSync, writeFileSync} from 'node:fs'

const path = process.argv[2] ?? 'conformance/package-lock.json'
const lock = JSON.parse(readFileSync(path, 'utf8'))
const pk = lock.packages
const plat = {
  'opencode-darwin-arm64': [['darwin'], ['arm64']],
  'opencode-darwin-x64': [['darwin'], ['x64']],
  'opencode-darwin-x64-baseline': [['darwin'], ['x64']],
  'opencode-linux-arm64': [['linux'], ['arm64'], ['glibc']],
  'opencode-linux-arm64-musl': [['linux'], ['arm64'], ['musl']],
  'opencode-linux-x64-baseline-musl': [['linux'], ['x64'], ['musl']],
  'opencode-linux-x64-musl': [['linux'], ['x64'], ['musl']],
  'opencode-windows-arm64': [['win32'], ['arm64']],
  'opencode-windows-x64': [['win32'], ['x64']],
  'opencode-windows-x64-baseline': [['win32'], ['x64']],
}
const {dev, version} = pk['node_modules/opencode-ai']
for (const [name, [os, cpu, libc]] of Object.entries(plat)) {
  if (pk[`node_modules/${name}`]) continue
  pk[`node_modules/${name}`] = {version, cpu, ...(dev ? {dev} : {}), ...(libc ? {libc} : {}), license: 'MIT', optional: true, os}
}
const keys = Object.keys(pk).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en')))
lock.packages = Object.fromEntries(keys.map((k) => [k, pk[k]]))
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
