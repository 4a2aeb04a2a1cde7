/**
 * The floor for a no-op sync (issue 16): walk the given folders and stat every file, what any
 * incremental sync must do to learn that nothing changed. Usage: node bench/bare/stat.js DIR...
 */
import fs from 'node:fs'
import path from 'node:path'

let files = 0
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
    else {
      fs.statSync(p)
      files++
    }
  }
}
for (const dir of process.argv.slice(2)) walk(dir)
process.stdout.write(JSON.stringify({files}) + '\n')
