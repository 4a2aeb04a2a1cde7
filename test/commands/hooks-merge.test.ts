/**
 * The pure parts of `cast hooks`: merging into and removing from a parsed settings document,
 * recognising cast's command, quoting it for sh, and editing Codex's config.toml as text.
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

import {claudeCodeHookSpec} from '../../src/adapters/claude-code/hooks-spec.js'
import {codexNotify, tomlTopLevel} from '../../src/adapters/codex/hooks-spec.js'
import {cursorHookSpec} from '../../src/adapters/cursor/hooks-spec.js'
import {
  hookCommandFor,
  hookSpecFor,
  isCastCommand,
  mergeHooks,
  parseCastCommand,
  removeHooks,
  shellCommand,
  shellWords,
} from '../../src/lib/agents/hooks/index.js'

const CMD = '/opt/cast/bin/cast-hook claude_code'

describe('mergeHooks / removeHooks', () => {
  it('pulls cast out of a group the user shares, keeps the user handler there', () => {
    const doc = {
      hooks: {
        Stop: [
          {
            hooks: [
              {type: 'command', command: 'say hi'},
              {type: 'command', command: '/old/bin/cast-hook claude_code'},
            ],
          },
        ],
      },
    }

    const {doc: merged, updated} = mergeHooks(claudeCodeHookSpec, doc, CMD)
    const {doc: removed} = removeHooks(claudeCodeHookSpec, merged)

    expect(updated).toContain('Stop')
    expect((merged['hooks'] as any).Stop).toEqual([
      {hooks: [{type: 'command', command: 'say hi'}]},
      {hooks: [{type: 'command', command: CMD, timeout: 10}]},
    ])
    expect(removed).toEqual({hooks: {Stop: [{hooks: [{type: 'command', command: 'say hi'}]}]}})
  })

  it('makes duplicates one and drops cast entries under events it no longer installs', () => {
    const mine = {hooks: [{type: 'command', command: CMD, timeout: 10}]}
    const doc = {hooks: {Stop: [mine, mine], Elsewhere: [mine, {hooks: [{type: 'command', command: 'x'}]}]}}

    const r = mergeHooks(claudeCodeHookSpec, doc, CMD)

    expect((r.doc['hooks'] as any).Stop).toEqual([mine])
    expect(r.updated).toContain('Stop')
    expect(r.dropped).toEqual(['Elsewhere'])
    expect((r.doc['hooks'] as any).Elsewhere).toEqual([{hooks: [{type: 'command', command: 'x'}]}])
  })

  it('leaves a document without cast entries exactly as it was, empty lists included', () => {
    const doc = {a: 1, hooks: {Stop: [], PreToolUse: [{matcher: 'Bash', hooks: []}]}}

    const r = removeHooks(claudeCodeHookSpec, doc)

    expect(r.removed).toEqual([])
    expect(r.doc).toEqual(doc)
  })

  it('adds the required keys first in a flat-layout file', () => {
    const r = mergeHooks(cursorHookSpec, {}, '/x/cast-hook cursor')

    expect(Object.keys(r.doc)).toEqual(['version', 'hooks'])
    expect((r.doc['hooks'] as any).stop).toEqual([{command: '/x/cast-hook cursor'}])
  })

  it('is a no-op the second time', () => {
    const once = mergeHooks(claudeCodeHookSpec, {model: 'x'}, CMD).doc

    const twice = mergeHooks(claudeCodeHookSpec, once, CMD)

    expect(twice.changed).toBe(false)
    expect(twice.doc).toEqual(once)
  })
})

describe('the hook command', () => {
  it.each`
    command                                                 | cast
    ${'/opt/cast/bin/cast-hook claude_code'}                | ${true}
    ${"CAST_HOME='/x y' '/opt/my dir/bin/cast-hook' codex"} | ${true}
    ${'cast-hook gemini'}                                   | ${true}
    ${'/usr/bin/env CAST_HOME=/x /a/cast-hook codex'}       | ${true}
    ${'/opt/cast/bin/cast-hook-wrapper claude_code'}        | ${false}
    ${'notify-send "cast-hooks are great"'}                 | ${false}
    ${'~/bin/guard.sh'}                                     | ${false}
  `('$command is cast: $cast', ({command, cast}) => {
    expect(isCastCommand(command)).toBe(cast)
  })

  it('bakes CAST_HOME only when the user runs cast with a non-default store', () => {
    expect(hookCommandFor('codex', {HOME: '/h'}, '/b/cast-hook').castHome).toBeNull()
    expect(hookCommandFor('codex', {CAST_HOME: '/data/cast', HOME: '/h'}, '/b/cast-hook').castHome).toBe('/data/cast')
    expect(hookCommandFor('codex', {HOME: '/h', XDG_DATA_HOME: '/xdg'}, '/b/cast-hook').castHome).toBe('/xdg/cast')
  })

  it('quotes awkward paths so sh runs them, and parses them back', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cast hook's test-"))
    try {
      const binary = path.join(dir, 'bin dir', 'cast-hook')
      fs.mkdirSync(path.dirname(binary), {recursive: true})
      fs.copyFileSync(path.resolve('bin/cast-hook'), binary)
      fs.chmodSync(binary, 0o755)
      const store = path.join(dir, "store 'q'")
      const command = shellCommand({agent: 'claude_code', binary, castHome: store})

      const r = spawnSync('sh', ['-c', command], {
        env: {HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin'},
        input: '{"hook_event_name":"Stop"}',
      })

      expect(r.status).toBe(0)
      expect(fs.readdirSync(path.join(store, 'spool'))).toHaveLength(1)
      expect(parseCastCommand(command)).toEqual({binary, castHome: store})
      expect(shellWords(command)).toEqual([`CAST_HOME=${store}`, binary, 'claude_code'])
    } finally {
      fs.rmSync(dir, {force: true, recursive: true})
    }
  })

  it('finds specs by name, agent id and alias', () => {
    expect(hookSpecFor('claude-code')?.agent).toBe('claude_code')
    expect(hookSpecFor('claude_code')?.agent).toBe('claude_code')
    expect(hookSpecFor('Claude')?.agent).toBe('claude_code')
    expect(hookSpecFor('cursor-agent')?.agent).toBe('cursor')
    expect(hookSpecFor('pi')).toBeUndefined()
  })
})

describe("Codex's config.toml, edited as text", () => {
  const argv = ['/b/cast-hook', 'codex']
  const line = 'notify = ["/b/cast-hook", "codex"]'

  it('finds top-level keys and the first table, stepping over strings, comments and arrays', () => {
    const text = [
      'model = "o3" # [not a table]',
      'prompt = """',
      '[also not a table]',
      '"""',
      "paths = ['[x', 'y]']",
      'list = [',
      '  ["nested"],',
      ']',
      '',
      '[profiles.fast]',
      'notify = ["inside", "a table"]',
    ].join('\n')

    const top = tomlTopLevel(text)

    expect(top.entries.map((e) => [e.key, e.start, e.end])).toEqual([
      ['model', 0, 0],
      ['prompt', 1, 3],
      ['paths', 4, 4],
      ['list', 5, 7],
    ])
    expect(top.header).toBe(9)
    expect(codexNotify.find(text)).toBeNull()
  })

  it.each`
    name                         | before
    ${'an empty file'}           | ${''}
    ${'keys, no newline at end'} | ${'model = "o3"'}
    ${'keys and tables'}         | ${'model = "o3"\n\n[features]\nhooks = true\n'}
    ${'only a table'}            | ${'[features]\nhooks = true\n'}
  `('sets notify at the top level of $name and takes it out again', ({before}) => {
    const after = codexNotify.set(before, argv)

    expect(tomlTopLevel(after).entries.some((e) => e.key === 'notify')).toBe(true)
    expect(codexNotify.find(after)).toEqual({cast: true, value: '["/b/cast-hook", "codex"]'})
    expect(after.split('\n').indexOf(line)).toBeLessThan(Math.max(0, tomlTopLevel(after).header) + 1)
    const back = codexNotify.remove(after)
    expect(back.replace(/\n$/, '')).toBe(before.replace(/\n$/, ''))
  })

  it("replaces cast's earlier notify, leaves a user's one and reads a multi-line one", () => {
    const old = 'notify = [\n  "/old/cast-hook",\n  "codex",\n]\nmodel = "o3"\n'
    const users = 'notify = [\n  "terminal-notifier",\n]\n'

    expect(codexNotify.set(old, argv)).toBe(`${line}\nmodel = "o3"\n`)
    expect(codexNotify.find(users)).toEqual({cast: false, value: '[\n  "terminal-notifier",\n]'})
    expect(codexNotify.remove(users)).toBe(users)
  })

  it('notes hooks switched off in [features]', () => {
    expect(codexNotify.notes?.('[features]\nhooks = false\n')).toHaveLength(1)
    expect(codexNotify.notes?.('[features]\ncodex_hooks = false\n[other]\n')).toHaveLength(1)
    expect(codexNotify.notes?.('[features]\nhooks = true\n')).toEqual([])
  })
})
