/**
 * The floor for `cast sessions --json`: a bare Node script that opens the same database with
 * better-sqlite3, reads the same rows (sessions, their records, owners and labels), JSON-parses
 * the facts and prints one JSON document. Usage: node bench/bare/list.js <cast.db>
 */
import {createRequire} from 'node:module'
import path from 'node:path'

const root = path.resolve(process.env.CAST_BENCH_ROOT || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'))
const Database = createRequire(path.join(root, 'package.json'))('better-sqlite3')
const db = new Database(process.argv[2], {readonly: true, fileMustExist: true})
const records = new Map()
for (const r of db.prepare('SELECT * FROM records').all()) records.set(r.session_id, r)
const owners = new Map()
for (const r of db.prepare('SELECT session_id, who FROM owners').all())
  owners.set(r.session_id, [...(owners.get(r.session_id) ?? []), r.who])
const labels = new Map()
for (const r of db.prepare('SELECT session_id, who, label FROM labels').all())
  labels.set(r.session_id, [...(labels.get(r.session_id) ?? []), r.label])
const sessions = db
  .prepare('SELECT * FROM sessions')
  .all()
  .map((s) => {
    const rec = records.get(s.id) ?? null
    return {
      ...s,
      facts: JSON.parse(s.facts),
      records: rec && {...rec, declaration: rec.declaration ? JSON.parse(rec.declaration) : null},
      owners: owners.get(s.id) ?? [],
      labels: labels.get(s.id) ?? [],
    }
  })
db.close()
process.stdout.write(JSON.stringify({sessions}) + '\n')
