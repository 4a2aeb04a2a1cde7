/**
 * The floor for `cast status`: a bare Node process that opens the same database with
 * better-sqlite3, reads the columns the status line counts, and prints a count.
 * Usage: node bench/bare/status.js <cast.db>
 */
import {createRequire} from 'node:module'
import path from 'node:path'

const root = path.resolve(process.env.CAST_BENCH_ROOT || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'))
const Database = createRequire(path.join(root, 'package.json'))('better-sqlite3')
const db = new Database(process.argv[2], {readonly: true, fileMustExist: true})
let need = 0
for (const r of db.prepare('SELECT state, bucket FROM sessions').iterate())
  if (r.state === 'needs_input' || r.bucket === 'questions') need++
db.close()
process.stdout.write(`${need} need you\n`)
