/**
 * The floor for a no-op resync: walk the given folders and stat every file (what any incremental
 * sync must do to learn that nothing changed), then read the store's session rows as
 * bench/bare/list.js does. Usage: node bench/bare/resync.js <cast.db> DIR...
 */
import fs from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'

const root = path.resolve(process.env.CAST_BENCH_ROOT || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'))
const Database = createRequire(path.join(root, 'package.json'))('better-sqlite3')
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
const [dbFile, ...dirs] = process.argv.slice(2)
for (const dir of dirs) walk(dir)
const db = new Database(dbFile, {readonly: true, fileMustExist: true})
const known = db.prepare('SELECT path, size, mtime_ms FROM files').all()
const sessions = db
  .prepare('SELECT * FROM sessions')
  .all()
  .map((s) => ({...s, facts: JSON.parse(s.facts)}))
db.close()
process.stdout.write(JSON.stringify({files, known: known.length, sessions}) + '\n')
