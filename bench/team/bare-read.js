/**
 * The floor for the team views: a bare Node process that connects to the team store with `pg`,
 * reads every session summary the team published, parses them and prints a count.
 * Usage: node bench/team/bare-read.js URL
 */
import {createRequire} from 'node:module'
import path from 'node:path'

const root = path.resolve(process.env.CAST_BENCH_ROOT || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'))
const pg = createRequire(path.join(root, 'package.json'))('pg')
const c = new pg.Client({connectionString: process.argv[2]})
await c.connect()
const r = await c.query('SELECT s.summary, m.skew_ms FROM cast_team.sessions s LEFT JOIN cast_team.machines m ON m.device = s.device')
await c.end()
let need = 0
for (const x of r.rows) if (x.summary.state === 'needs_input') need++
process.stdout.write(`${r.rows.length} sessions, ${need} need input\n`)
