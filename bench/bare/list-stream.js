/**
 * The streamed floor for `cast sessions --json --all`: a bare Node script that walks the same rows
 * with better-sqlite3's iterator (sessions joined with their records, owners and labels, one
 * statement), JSON-parses each row's facts and declaration, and writes exactly the bytes cast
 * prints, 64 KB at a time as the rows go by, so its memory stays flat. The bytes come from
 * OUTPUT, a file holding cast's own answer over the same store (bench/list.js captures it before
 * timing and checks with the same comparison as `cmp` that this script prints it back): the floor
 * is reading the rows and writing the answer, without the shaping, the order and the
 * serialisation cast does between the two. Usage: node bench/bare/list-stream.js <cast.db> <OUTPUT>
 */
import fs from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'

const root = path.resolve(process.env.CAST_BENCH_ROOT || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'))
const Database = createRequire(path.join(root, 'package.json'))('better-sqlite3')
const db = new Database(process.argv[2], {readonly: true, fileMustExist: true})
const out = fs.openSync(process.argv[3], 'r')
const total = fs.fstatSync(out).size
// Every column of sessions but `shown` (migration 10: the part of the facts cast's listing reads,
// which this floor would read on top of the whole facts): the floor reads the facts, as before.
const sessionColumns = db
  .prepare('PRAGMA table_info(sessions)')
  .all()
  .map((c) => c.name)
  .filter((c) => c !== 'shown')
  .map((c) => `s."${c}"`)
  .join(', ')
const rows = db.prepare(
  `SELECT ${sessionColumns}, r.declaration AS r_declaration, r.pinned AS r_pinned, r.filing AS r_filing, r.snoozed_until AS r_snoozed_until,
     (SELECT json_group_array(who) FROM owners o WHERE o.session_id = s.id) AS owners,
     (SELECT json_group_array(label) FROM labels l WHERE l.session_id = s.id) AS labels
   FROM sessions s LEFT JOIN records r ON r.session_id = s.id`,
)
const n = db.prepare('SELECT count(*) FROM sessions').pluck().get()
const CHUNK = 1 << 16
const buf = Buffer.allocUnsafe(CHUNK)
let done = 0
/** Write the answer's bytes up to `upto`, a whole chunk at a time (the rest with `all`). */
const writeUpTo = (upto, all) => {
  while (upto - done >= CHUNK || (all && done < upto)) {
    const got = fs.readSync(out, buf, 0, Math.min(CHUNK, upto - done), done)
    fs.writeSync(1, buf, 0, got)
    done += got
  }
}
let i = 0
let kept = 0
for (const s of rows.iterate()) {
  const facts = JSON.parse(s.facts)
  const declaration = s.r_declaration ? JSON.parse(s.r_declaration) : null
  kept += JSON.parse(s.owners).length + JSON.parse(s.labels).length + (declaration ? 1 : 0) + (facts ? 1 : 0)
  writeUpTo(Math.floor((total * ++i) / Math.max(1, n)), false)
}
writeUpTo(total, true)
db.close()
if (kept < 0) process.exitCode = 1
