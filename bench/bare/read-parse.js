/**
 * The floor for a cold index: a bare Node script that walks the given folders, reads every
 * .jsonl file and JSON-parses every line, and prints how many files, lines and bytes it saw.
 * Usage: node bench/bare/read-parse.js DIR...
 */
import fs from 'node:fs'
import path from 'node:path'

let files = 0
let lines = 0
let bytes = 0
let bad = 0
const walk = (dir) => {
  let entries
  try {
    entries = fs.readdirSync(dir, {withFileTypes: true})
  } catch {
    return
  }
  for (const e of entries) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) walk(p)
    else if (e.isFile() && e.name.endsWith('.jsonl')) {
      const text = fs.readFileSync(p, 'utf8')
      files++
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
            bad++
          }
        }
        s = nl + 1
      }
    }
  }
}
for (const dir of process.argv.slice(2)) walk(dir)
process.stdout.write(JSON.stringify({files, lines, bytes, bad}) + '\n')
