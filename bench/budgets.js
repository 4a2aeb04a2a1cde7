/**
 * `node bench/budgets.js [bench/results.json]`: the issue-27 budget lines (bench/lib/budgets.js)
 * of a results file that `npm run bench` wrote.
 */
import fs from 'node:fs'
import path from 'node:path'

import {REPO} from './lib/common.js'
import {printBudgets} from './lib/budgets.js'

const file = path.resolve(process.argv[2] ?? path.join(REPO, 'bench', 'results.json'))
const results = JSON.parse(fs.readFileSync(file, 'utf8'))
process.stdout.write(
  `${path.relative(process.cwd(), file) || file}: ${results.generated_at}, load average per benchmark: ${Object.entries(results.runs ?? {})
    .map(([k, v]) => `${k} ${v.loadavgBefore?.toFixed?.(1) ?? '?'}→${v.loadavgAfter?.toFixed?.(1) ?? '?'}`)
    .join(', ')}\n`,
)
printBudgets(results.rows ?? [])
