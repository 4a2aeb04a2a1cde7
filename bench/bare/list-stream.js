/**
 * The streamed floor for `cast sessions --json --all` (issue 16): a bare Node script that walks the
 * same rows with better-sqlite3's iterator (sessions, their records, owners and labels), JSON-parses
 * each row's facts and writes it at once, so its memory stays flat. Usage: node bench/bare/list-stream.js <cast.db>
 */
import {createRequire} from 'node:module'
import path from 'node:path'

const root = path.resolve(process.env.CAST_BENCH_ROOT || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'))
const Database = createRequire(path.join(root, 'package.json'))('better-sqlite3')
const db = new Database(process.argv[2], {readonly: true, fileMustExist: true})
const rows = db.prepare(
  `SELECT s.*, r.declaration AS r_declaration, r.pinned AS r_pinned, r.filing AS r_filing, r.snoozed_until AS r_snoozed_until,
     (SELECT json_group_array(who) FROM owners o WHERE o.session_id = s.id) AS owners,
     (SELECT json_group_array(label) FROM labels l WHERE l.session_id = s.id) AS labels
   FROM sessions s LEFT JOIN records r ON r.session_id = s.id`,
)
let n = 0
let out = '{"sessions":['
for (const s of rows.iterate()) {
  const row = {
    ...s,
    facts: JSON.parse(s.facts),
    r_declaration: s.r_declaration ? JSON.parse(s.r_declaration) : null,
    owners: JSON.parse(s.owners),
    labels: JSON.parse(s.labels),
  }
  out += (n++ === 0 ? '' : ',') + JSON.stringify(row, null, 2)
  if (out.length > 1 << 16) {
    process.stdout.write(out)
    out = ''
  }
}
process.stdout.write(out + ']}\n')
db.close()
