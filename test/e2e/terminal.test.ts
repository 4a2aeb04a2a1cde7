/**
 * cast on a real terminal: a tmux server on the test's own socket folder, panes of 60 and 120
 * columns by 40 lines, over the demo store (`cast demo --keep`, plus a decision card with CJK and
 * an escape sequence in its text, and two scheduled messages). Read back with capture-pane.
 * - `cast sessions` is taller than 40 lines: it opens in the pager (less -FRX), the top of the
 *   inbox (the tally, QUESTIONS) on screen; in a pipe, or with CAST_PAGER=, it prints straight.
 * - every table fits the pane: no line wraps (capture-pane -J joins wrapped lines: none may be
 *   wider than the pane).
 * - `cast inbox` keeps your place: after x (stash) the cursor is on the row that took its place.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startTmux, type TmuxServer, waitFor} from '../fakes/agents.js'
import {BIN, json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {displayWidth} from '../../src/lib/views/style.js'

let h: TempHome
let server: TmuxServer
let env: Record<string, string>
let now: string

beforeAll(async () => {
  h = makeHome()
  const tmp = path.join(h.dir, 'tmp')
  fs.mkdirSync(tmp)
  // The demo's clock: reading commands read the demo as it was built (no sync moves it on).
  now = String(Date.now())
  const built = await runCast(['demo', '--keep', '--json'], {env: {...h.env, CAST_NOW: now, TMPDIR: tmp}, timeout: 120_000})
  expect(built.code, built.stderr).toBe(0)
  const demo = json<{cast_home: string; home: string}>(built)
  // `cast` on PATH, so the typed command lines are short (a wrapped prompt would read as a wrapped table).
  const bin = path.join(h.dir, 'bin')
  fs.mkdirSync(bin)
  fs.writeFileSync(path.join(bin, 'cast'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {mode: 0o755})
  // A UTF-8 locale: tmux shows a middle dot or a CJK character as the terminal would, not as bytes.
  env = {...h.env, CAST_HOME: demo.cast_home, HOME: demo.home, LC_ALL: 'C.UTF-8', PATH: `${bin}:${h.env.PATH}`, TERM: 'xterm-256color'}
  const decide = await runCast(
    [
      'decide',
      '-s',
      'kdsmarj',
      'Migrate every raw-header call site now 数据库迁移 or \u001B[31mkeep\u001B[0m both paths until next quarter?',
      '-o',
      'keep :: two code paths stay',
      '-o',
      'migrate :: forty files, one afternoon of review',
    ],
    {env: {...env, CAST_NOW: now}},
  )
  expect(decide.code, decide.stderr).toBe(0)
  for (const args of [
    [
      'schedule',
      'kdsmarj',
      '--in',
      '90m',
      'Check CI and, when it is green, merge the branch and tell the channel about the release 发布 notes',
    ],
    ['schedule', 'kdsmarj', '--every', '1h', '--in', '30m', 'Status?'],
  ]) {
    const r = await runCast(args, {env: {...env, CAST_NOW: now}})
    expect(r.code, r.stderr).toBe(0)
  }

  server = startTmux(env)
}, 180_000)

afterAll(async () => {
  server?.kill()
  // The inbox's ingester may still be closing its store when its pane goes.
  await new Promise((resolve) => setTimeout(resolve, 500))
  h?.cleanup()
})

let panes = 0
/** A new session of `cols` × 40 running a bare shell; returns its pane. */
function shell(cols: number, extra: Record<string, string> = {}): string {
  const vars = Object.entries({...env, CAST_NOW: now, PS1: '$ ', ...extra}).flatMap(([k, v]) => ['-e', `${k}=${v}`])
  const name = `p${++panes}`
  server.tmux(['new-session', '-d', '-s', name, '-x', String(cols), '-y', '40', ...vars, '--', 'bash', '--norc', '--noprofile'])
  return server.tmux(['display-message', '-p', '-t', `${name}:`, '#{pane_id}']).trim()
}

const cast = 'cast'
function run(pane: string, line: string): void {
  server.tmux(['send-keys', '-t', pane, '-l', line])
  server.tmux(['send-keys', '-t', pane, 'Enter'])
}

/** What the pane shows, wrapped lines joined back into one (so a wrapped line is a long one). */
const joined = (pane: string): string[] => server.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', pane]).replace(/\n+$/, '').split('\n')
const screen = (pane: string): string => server.tmux(['capture-pane', '-p', '-t', pane])
const shows = (pane: string, re: RegExp, timeoutMs = 60_000): Promise<string> =>
  waitFor(
    () => (re.test(screen(pane)) ? screen(pane) : null),
    timeoutMs,
    () => `screen never matched ${re}:\n${screen(pane)}`,
  )

/** The shell has the pane again (the command it ran has exited). */
const back = (pane: string): Promise<unknown> =>
  waitFor(() => server.tmux(['display-message', '-p', '-t', pane, '#{pane_current_command}']).trim() === 'bash' || null, 30_000)

describe.each([60, 120])('a %i-column, 40-line terminal', (cols) => {
  it('cast sessions opens in the pager with the tally and QUESTIONS at the top; no line wraps', async () => {
    const pane = shell(cols)
    run(pane, `${cast} sessions`)
    // less -FRX waits at its prompt (":") because the inbox is taller than the pane.
    const s = await shows(pane, /^:\s*$/m)
    const lines = s.split('\n')
    expect(lines[0]).toMatch(/^cast sessions · /)
    expect(lines[1]).toMatch(/^needs input \d+ · /)
    // The demo's four asks (two approvals, two questions) and the decision card posted above.
    expect(s).toMatch(/QUESTIONS \(5\)/)
    for (const l of joined(pane)) expect(displayWidth(l), l).toBeLessThanOrEqual(cols)
    server.tmux(['send-keys', '-t', pane, 'q'])
    await back(pane)
  })

  it('in a pipe, with CAST_PAGER= or with --no-pager, the listing prints straight through', async () => {
    for (const [extra, line] of [
      [{}, `${cast} sessions | cat; echo END`],
      [{CAST_PAGER: ''}, `${cast} sessions; echo END`],
      [{}, `${cast} sessions --no-pager; echo END`],
    ] as const) {
      const pane = shell(cols, extra)
      run(pane, line)
      await shows(pane, /^END$/m)
      const all = joined(pane)
      expect(all.some((l) => /^cast sessions · /.test(l))).toBe(true)
      expect(
        all.some((l) => /^KILLED \(1\)/.test(l)),
        all.join('\n'),
      ).toBe(true)
      expect(all.some((l) => /^:\s*$/.test(l))).toBe(false)
    }
  })

  it.each([
    ['feed -g', /cast feed · every directory/],
    ['decide list', /CARD/],
    ['explain kdsmarj', /kdsmarj/],
    ['owners kdsmarj', /kdsmarj/],
    ['doctor', /No problems found|problems?:/],
    ['schedule list', /MESSAGE/],
  ])('cast %s fits the width', async (command, marker) => {
    const pane = shell(cols)
    run(pane, `${cast} ${command}; echo END`)
    await shows(pane, /^END$/m)
    const all = joined(pane)
    expect(all.join('\n')).toMatch(marker)
    for (const l of all) expect(displayWidth(l), l).toBeLessThanOrEqual(cols)
    // The escape sequence in the card's question is shown (^[), not obeyed, and measured as shown.
    if (command === 'decide list') expect(all.join('\n')).toContain('^[[')
  })

  it('cast sessions -w (human) fits the width', async () => {
    const pane = shell(cols)
    run(pane, `${cast} sessions -w --snapshot`)
    await shows(pane, /now\s+\w{7}\s+needs input:/)
    server.tmux(['send-keys', '-t', pane, 'C-c'])
    await back(pane)
    const all = joined(pane)
    expect(all.filter((l) => /^\d\d:\d\d/.test(l)).length).toBeGreaterThan(5)
    for (const l of all) expect(displayWidth(l), l).toBeLessThanOrEqual(cols)
  })
})

describe('cast inbox keeps your place', () => {
  it('after x (stash) the cursor is on the row that took the card’s place; x again stashes that one', async () => {
    // On the real clock: the inbox's verbs write, which a test clock may not (docs/contract.md).
    const pane = shell(120, {NO_COLOR: '1'})
    run(pane, 'env -u CAST_NOW cast inbox')
    // Each row's first line: "› ○ needs input:question  grjaguv  Plan …" (› marks the cursor).
    const rows = (s: string): {cursor: boolean; id: string}[] =>
      [...s.matchAll(/^([› ]) \S+ [a-z ]+:\w+ {2}(\w{7}) {2}/gm)].map((m) => ({cursor: m[1] === '›', id: m[2]!}))
    const cursor = (s: string): string | undefined => rows(s).find((r) => r.cursor)?.id
    let s = await shows(pane, /^› /m)
    // The inbox syncs the demo's files on the real clock as it starts: wait until its rows stop moving.
    await waitFor(async () => {
      const a = rows(screen(pane))
        .map((r) => r.id)
        .join()
      await new Promise((resolve) => setTimeout(resolve, 2000))
      return (
        rows(screen(pane))
          .map((r) => r.id)
          .join() === a || null
      )
    }, 60_000)
    // The cursor on the second row shown, so it has rows before and after it.
    s = screen(pane)
    const at = rows(s).findIndex((r) => r.cursor)
    for (let i = at; i < 1; i++) server.tmux(['send-keys', '-t', pane, 'j'])
    for (let i = at; i > 1; i--) server.tmux(['send-keys', '-t', pane, 'k'])
    s = await waitFor(
      () => (rows(screen(pane)).findIndex((r) => r.cursor) === 1 ? screen(pane) : null),
      30_000,
      () => screen(pane),
    )
    const [first, second, third] = rows(s)
      .map((r) => r.id)
      .slice(1, 4)
    server.tmux(['send-keys', '-t', pane, 'x'])
    s = await shows(pane, /^ok: /m)
    expect(cursor(s), s).toBe(second)
    server.tmux(['send-keys', '-t', pane, 'x'])
    s = await waitFor(
      () => (/^ok: /m.test(screen(pane)) && cursor(screen(pane)) !== second ? screen(pane) : null),
      60_000,
      () => screen(pane),
    )
    expect(cursor(s), s).toBe(third)
    const all = json<{sessions: {short_id: string; bucket: string}[]}>(await runCast(['sessions', '--json', '--all'], {env}))
    expect(all.sessions.filter((x) => x.short_id === first || x.short_id === second).map((x) => x.bucket)).toEqual(['stashed', 'stashed'])
    server.tmux(['send-keys', '-t', pane, 'q'])
    await back(pane)
  })
})
