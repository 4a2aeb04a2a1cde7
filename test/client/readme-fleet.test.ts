/**
 * The README's orchestrator (examples/fleet.ts, shown whole under "From an agent or a program"),
 * run as a user would: `npx tsx fleet.ts` in a folder where `cast-inbox` is installed and `cast`
 * is on PATH, against real tmux with the stand-in agent as Claude Code (test/fakes). It spawns two
 * workers, follows them with the library's watch and sends each its next step until every step
 * is done.
 */
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {makeProject, startTmux, type TmuxServer, userTexts, writeFakeConfig} from '../fakes/agents.js'
import {BIN, json, makeHome, ROOT, runCast, type TempHome} from '../helpers/cli.js'

const EXAMPLE = path.join(ROOT, 'examples', 'fleet.ts')
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx')

describe('the README’s orchestrator on the library', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '300'})
    // `cast` on PATH, and the package installed where the script is.
    const bin = path.join(h.dir, 'bin')
    fs.mkdirSync(bin)
    fs.symlinkSync(BIN, path.join(bin, 'cast'))
    fs.mkdirSync(path.join(proj, 'node_modules'), {recursive: true})
    fs.symlinkSync(ROOT, path.join(proj, 'node_modules', 'cast-inbox'))
    fs.writeFileSync(path.join(proj, 'package.json'), JSON.stringify({dependencies: {'cast-inbox': '*'}, private: true, type: 'module'}))
    fs.copyFileSync(EXAMPLE, path.join(proj, 'fleet.ts'))
    env = {...h.env, ...server.env, PATH: `${bin}:${h.env.PATH}`}
  })

  afterEach(() => {
    server.kill()
    h.cleanup()
  })

  it('is the file the README shows, whole', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('### From an agent or a program'))
    const block = /```ts\n([\s\S]*?)```/.exec(section)
    expect(block?.[1]).toBe(fs.readFileSync(EXAMPLE, 'utf8'))
  })

  it('spawns two workers, watches them and steers each through its steps', async () => {
    const r = await new Promise<{code: number; stdout: string; stderr: string}>((resolve) => {
      execFile(TSX, ['fleet.ts'], {cwd: proj, env, timeout: 170_000}, (error, stdout, stderr) =>
        resolve({code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr, stdout}),
      )
    })

    expect(r.code, r.stdout + r.stderr).toBe(0)
    if (process.env.CAST_SHOW_FLEET) process.stdout.write(r.stdout)
    expect(r.stdout).toMatch(/^spawned parser as \w{7}\nspawned docs as \w{7}\n/)
    expect(r.stdout).toContain('parser: all 2 steps done')
    expect(r.stdout).toContain('docs: all 3 steps done')
    const listing = json(await runCast(['sessions', '--json', '--all'], {env}))
    const byTitle = new Map<string, {native_id: string}>(listing.sessions.map((s: {title: string}) => [s.title, s]))
    expect(userTexts(h.home, proj, byTitle.get('Write a parser for the config format')!.native_id)).toEqual([
      'Write a parser for the config format',
      'Add unit tests for the parser',
    ])
    expect(userTexts(h.home, proj, byTitle.get('Draft docs/config.md')!.native_id)).toEqual([
      'Draft docs/config.md',
      'Add an example to docs/config.md',
      'Proofread docs/config.md',
    ])
  }, 200_000)
})
