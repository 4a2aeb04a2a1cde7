/**
 * Shell completion completes values, as gh and kubectl do: real bash sources the script cast
 * prints, sets COMP_WORDS/COMP_CWORD as readline would, calls the completion function, and the
 * candidates come from `cast __complete` over a store with two Claude Code sessions.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, claudeLines, claudeTranscriptPath, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const SID = 'c0c0c0c0-1111-4222-8333-444444444444'
let h: TempHome
let script: string
let env: Record<string, string>
let short: string

beforeAll(async () => {
  h = makeHome()
  writeFile(
    claudeTranscriptPath(h.home, '/src/app', SID),
    claudeLines({at: new Date(Date.now() - 60_000), cwd: '/src/app', prompt: 'Fix the parser', sessionId: SID}),
  )
  const listed = await runCast(['sessions', '--json', '--all'], {env: h.env})
  short = (JSON.parse(listed.stdout) as {sessions: {short_id: string}[]}).sessions[0]!.short_id
  const bin = path.join(h.dir, 'bin')
  fs.mkdirSync(bin)
  fs.writeFileSync(path.join(bin, 'cast'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {mode: 0o755})
  env = {...h.env, PATH: `${bin}:${h.env.PATH}`}
  script = path.join(h.dir, 'cast.bash')
  fs.writeFileSync(script, (await runCast(['completion', 'bash'], {env})).stdout)
}, 60_000)

afterAll(() => h.cleanup())

/** The candidates bash offers for the words typed so far (the last one is being completed). */
function complete(...words: string[]): string[] {
  const quoted = words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ')
  const out = execFileSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      `source '${script}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _cast_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    {encoding: 'utf8', env},
  )
  return out.split('\n').filter(Boolean)
}

describe('bash completion', () => {
  it('completes commands and flags as before', () => {
    expect(complete('cast', 'sess')).toEqual(['sessions'])
    expect(complete('cast', 'sessions', '--js')).toEqual(['--json'])
  })

  it('completes states after --state, --state= and wait --until', () => {
    expect(complete('cast', 'sessions', '--state', '')).toEqual(['working', 'needs_input', 'done', 'dormant', 'idle'])
    expect(complete('cast', 'sessions', '--state', 'n')).toEqual(['needs_input'])
    expect(complete('cast', 'sessions', '--state=d')).toEqual(['--state=done', '--state=dormant'])
    expect(complete('cast', 'wait', short, '--until', 'w')).toEqual(['working'])
  })

  it('completes agents, hook agents and presences', () => {
    expect(complete('cast', 'sessions', '--agent', 'co')).toEqual(['codex', 'copilot'])
    expect(complete('cast', 'hooks', 'install', '')).toEqual(expect.arrayContaining(['claude-code', 'codex', 'gemini']))
    expect(complete('cast', 'presence', '')).toEqual(expect.arrayContaining(['online', 'away']))
  })

  it('completes session ids from the store, for each session argument', () => {
    expect(complete('cast', 'explain', '')).toEqual([short])
    expect(complete('cast', 'explain', short.slice(0, 2))).toEqual([short])
    expect(complete('cast', 'explain', 'zz')).toEqual([])
    // Several sessions: every further word is one.
    expect(complete('cast', 'stash', short, '')).toEqual([short])
    // mark: the verdict first, then sessions.
    expect(complete('cast', 'mark', '')).toEqual(['done', 'dormant', 'needs-input', 'unread', 'read'])
    expect(complete('cast', 'mark', 'done', '')).toEqual([short])
  })

  it('cast __complete gives each session its title as the description', async () => {
    const r = await runCast(['__complete', 'sessions', ''], {env})
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`${short}\tFix the parser\n`)
    expect((await runCast(['__complete', 'nonsense', ''], {env})).stdout).toBe('')
  })
})

describe('zsh and fish scripts', () => {
  it('zsh loads the same function through bashcompinit; fish asks cast __complete too', async () => {
    const zsh = (await runCast(['completion', 'zsh'], {env})).stdout
    expect(zsh).toMatch(/^autoload -U \+X bashcompinit && bashcompinit/)
    expect(zsh).toContain('cast __complete "$kind" "$cur"')
    const fish = (await runCast(['completion', 'fish'], {env})).stdout
    expect(fish).toContain("complete -c cast -n '__fish_seen_subcommand_from explain' -a '(cast __complete sessions (commandline -ct))'")
    expect(fish).toMatch(/-l 'state' -r -a '\(cast __complete states/)
  })
})
