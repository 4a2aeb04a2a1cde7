/**
 * The budgets of issue 27 ("fast where it is felt"), one line each: met or missed, with the figure,
 * its floor, the ratio and the budget, and under a miss the profile its benchmark recorded
 * (`detail.profile`, bench/lib/profile.js). It only reads rows: each benchmark measures its own
 * (bench/status.js, state.js, idle.js, dayone.js, firstanswer.js, list.js, index.js), and a
 * budget whose rows are not in this run says so.
 */
import {profileLine} from './profile.js'

export const ISSUE_27 = [
  {point: 1, budget: 'cast status ≤ 1.5× node -e 0, with or without a daemon', match: /^status\b/i, bench: 'status'},
  {point: 2, budget: 'cast state ≤ 2× node -e 0 with a daemon, ≤ 4× without', match: /^state\b/i, bench: 'state'},
  {point: 3, budget: 'the idle daemon < 0.3% of a core at 10,000 files, its children included', match: /idle/i, bench: 'idle'},
  {point: 4, budget: 'day two ≤ 2× a bare stat of every file, no daemon', match: /^day two: no-op/i, bench: 'dayone, firstanswer'},
  {point: 5, budget: 'a complete first answer, within 2.5× "stat all + parse recent"', match: /^first answer/i, bench: 'firstanswer'},
  {
    point: 6,
    budget: 'lists ≤ 1.5× a streamed floor writing the same bytes, ≤ 200 MB',
    match: /^sessions --json --all, [\d,]+ sessions \(/i,
    bench: 'list',
  },
  {point: 7, budget: 'cold index ≤ 1.2× a bare read + JSON.parse, faster than ccusage', match: /^cold index/i, bench: 'index'},
]

/** The web inbox's (issue 26 points 4 and 7), measured by bench/web.js. */
export const ISSUE_26 = [
  {point: 7, budget: 'first useful paint ≤ 300 ms at 1,000 sessions (1 s at 10,000)', match: /^web first useful paint/i, bench: 'web'},
  {point: 4, budget: 'a change reaches the page ≤ 250 ms p95', match: /^web live/i, bench: 'web'},
  {point: 7, budget: 'the server idle < 1% of a core', match: /^web server at rest/i, bench: 'web'},
  {point: 7, budget: 'JavaScript ≤ 100 KB gzipped', match: /^web page JavaScript/i, bench: 'web'},
]

/** Print one line per budgeted row of each issue-27 point (and a profile line under each miss), then issue 26's. */
export function printBudgets(rows, out = process.stdout) {
  const a = printList(rows, out, 27, ISSUE_27)
  const b = printList(rows, out, 26, ISSUE_26)
  return {met: a.met + b.met, missed: a.missed + b.missed}
}

function printList(rows, out, issue, list) {
  out.write(`\nIssue ${issue} budgets (figure · cast · floor · ratio · budget):\n`)
  let met = 0
  let missed = 0
  for (const b of list) {
    const mine = rows.filter((r) => b.match.test(r.figure) && r.met !== null && r.met !== undefined)
    if (mine.length === 0) {
      out.write(`  ${issue}.${b.point} —       ${b.budget}: not measured in this run (bench/${b.bench.split(', ')[0]}.js)\n`)
      continue
    }

    for (const r of mine) {
      if (r.met) met++
      else missed++
      out.write(`  ${issue}.${b.point} ${r.met ? 'MET   ' : 'MISSED'}  ${r.figure} · ${r.cast} · ${r.floor} · ${r.ratio} · ${r.budget}\n`)
      if (r.met) continue
      const line = profileLine(r.detail?.profile)
      out.write(
        line
          ? `         profile (self time, one --cpu-prof run): ${line}\n`
          : `         no profile recorded (bench/${b.bench.split(', ').at(-1)}.js)\n`,
      )
      for (const note of r.detail?.tried ?? []) out.write(`         tried: ${note}\n`)
    }
  }

  out.write(`  ${met} met, ${missed} missed\n`)
  return {met, missed}
}
