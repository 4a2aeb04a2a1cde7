/**
 * The floor for cast's first answer on a large history (issue 16): walk the given folders, stat
 * every file, and read + JSON.parse every line of the .jsonl files modified since SINCE (epoch
 * ms): the least any tool must do to know the recent sessions. Usage: node bench/bare/recent.js SINCE DIR...
 */
import fs from 'node:fs'
import path from 'node:path'

const [sinceArg, ...dirs] = process.argv.slice(2)
const since = Number(sinceArg)
let files = 0
let parsed = 0
let lines = 0
let bytes = 0
const walk = (dir) => {
  let entries
  try {
    entries = fs.readdirSync(dir, {withFileTypes: true})
  } catch {
    return
  }
  for (const e of entries) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) {
      walk(p)
      continue
    }
    const st = fs.statSync(p)
    files++
    if (!e.name.endsWith('.jsonl') || st.mtimeMs < since) continue
    const text = fs.readFileSync(p, 'utf8')
    parsed++
    bytes += text.length
    let s = 0
    for (;;) {
      const nl = text.indexOf('\n', s)
      if (nl === -1) break
      if (nl > s) {
        try {
          JSON.parse(text.slice(s, nl))
          lines++
        } catch {
          // a malformed line: parsed and dropped, as cast does; only the valid ones are counted
        }
      }
      s = nl + 1
    }
  }
}
for (const dir of dirs) walk(dir)
process.stdout.write(JSON.stringify({files, parsed, lines, bytes}) + '\n')
