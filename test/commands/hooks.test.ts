/**
 * `cast hooks install|uninstall|status` through the built CLI, over a temporary HOME: the user's
 * own settings survive, installing twice adds nothing, uninstall takes out exactly cast's
 * entries, and the installed command really feeds the store (a PermissionRequest reaches the
 * Questions bucket), even while another process holds the database locked.
 */
import Database from 'better-sqlite3'
import {execFileSync, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, HOOK_BIN, json, makeHome, startCast, type TempHome, writeFile} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const CLAUDE_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
]

/** A settings.json a real user might have: other keys, and hooks of their own. */
const USER_SETTINGS = {
  model: 'opus',
  permissions: {allow: ['Bash(npm test:*)'], deny: []},
  hooks: {
    PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: '~/bin/guard.sh'}]}],
    Stop: [{hooks: [{type: 'command', command: 'notify-send "done"'}]}],
  },
  statusLine: {type: 'command', command: '~/bin/status.sh'},
}

let h: TempHome

beforeEach(() => {
  h = makeHome()
})

afterEach(() => {
  h.cleanup()
})

const settingsPath = (): string => path.join(h.home, '.claude', 'settings.json')
const read = (p: string): any => JSON.parse(fs.readFileSync(p, 'utf8'))
const backupsOf = (p: string): string[] =>
  fs
    .readdirSync(path.dirname(p))
    .filter((n) => n.startsWith(path.basename(p) + '.cast-backup-'))
    .map((n) => path.join(path.dirname(p), n))

/** Every command string under hooks.<event>, grouped layout. */
/** The commands under an event; cast's nudge word (CAST_NUDGE=1 on Stop, SessionStart, UserPromptSubmit) left out. */
function commandsOf(doc: any, event: string): string[] {
  return (doc.hooks?.[event] ?? []).flatMap((g: any) => (g.hooks ?? []).map((x: any) => String(x.command).replace(/^CAST_NUDGE=1 /, '')))
}

/** Run a hook command string the way an agent does: through sh, the payload on stdin. */
function runHook(command: string, payload: unknown, env: Record<string, string>): {status: number | null} {
  const r = spawnSync('sh', ['-c', command], {env, input: JSON.stringify(payload), timeout: 10_000})
  return {status: r.status}
}

describe('cast hooks: Claude Code', () => {
  it('merges into a settings.json with user hooks and other keys, after a backup; twice adds nothing; uninstall leaves the rest', async () => {
    const original = JSON.stringify(USER_SETTINGS, null, 2) + '\n'
    writeFile(settingsPath(), original)

    const before = json(await runCommand(['hooks', 'status', 'claude-code', '--json'], {env: h.env}))
    expect(before.agents[0]).toMatchObject({
      agent: 'claude_code',
      file: settingsPath(),
      file_exists: true,
      state: 'not_installed',
      events_installed: [],
    })

    const first = await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env})
    expect(first.code).toBe(0)
    const r1 = json(first)
    expect(r1).toMatchObject({agent: 'claude_code', changed: true, file: settingsPath(), added: CLAUDE_EVENTS, updated: []})
    expect(r1.command).toBe(`CAST_HOME='${h.castHome}' ${HOOK_BIN} claude_code`)

    // The backup holds the file as it was, byte for byte.
    const backups = backupsOf(settingsPath())
    expect(backups).toHaveLength(1)
    expect(r1.backup).toBe(backups[0])
    expect(fs.readFileSync(backups[0]!, 'utf8')).toBe(original)

    // Every other key as it was; the user's hooks first and untouched; cast's entry on every event.
    const merged = read(settingsPath())
    expect(merged.model).toBe('opus')
    expect(merged.permissions).toEqual(USER_SETTINGS.permissions)
    expect(merged.statusLine).toEqual(USER_SETTINGS.statusLine)
    expect(merged.hooks.PreToolUse[0]).toEqual(USER_SETTINGS.hooks.PreToolUse[0])
    expect(merged.hooks.Stop[0]).toEqual(USER_SETTINGS.hooks.Stop[0])
    for (const event of CLAUDE_EVENTS) expect(commandsOf(merged, event).filter((c) => c.includes('cast-hook'))).toEqual([r1.command])
    expect(merged.hooks.PreToolUse[1]).toEqual({matcher: '*', hooks: [{type: 'command', command: r1.command, timeout: 10}]})
    expect(merged.hooks.Notification[0].matcher).toBe('permission_prompt|elicitation_dialog|idle_prompt')
    expect(merged.hooks.Stop[1].matcher).toBeUndefined()

    // Twice: nothing added, nothing written, no second backup.
    const afterFirst = fs.readFileSync(settingsPath(), 'utf8')
    const r2 = json(await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env}))
    expect(r2).toMatchObject({added: [], changed: false, updated: [], backup: null})
    expect(fs.readFileSync(settingsPath(), 'utf8')).toBe(afterFirst)
    expect(backupsOf(settingsPath())).toHaveLength(1)

    const status = json(await runCommand(['hooks', 'status', '--json'], {env: h.env}))
    const claude = status.agents.find((a: any) => a.agent === 'claude_code')
    expect(claude).toMatchObject({
      binary: HOOK_BIN,
      binary_exists: true,
      cast_home: h.castHome,
      command: r1.command,
      events_installed: CLAUDE_EVENTS,
      events_missing: [],
      state: 'installed',
    })
    expect(status.agents.map((a: any) => a.agent)).toEqual(['claude_code', 'codex', 'gemini', 'copilot', 'cursor'])

    const un = json(await runCommand(['hooks', 'uninstall', 'claude-code', '--json'], {env: h.env}))
    expect(un.removed.sort()).toEqual([...CLAUDE_EVENTS].sort())
    expect(read(settingsPath())).toEqual(USER_SETTINGS)
    expect(JSON.stringify(read(settingsPath()))).toBe(JSON.stringify(USER_SETTINGS))

    const after = json(await runCommand(['hooks', 'status', 'claude-code', '--json'], {env: h.env}))
    expect(after.agents[0]).toMatchObject({command: null, state: 'not_installed'})
    const again = json(await runCommand(['hooks', 'uninstall', 'claude-code', '--json'], {env: h.env}))
    expect(again).toMatchObject({changed: false, removed: []})
  })

  it('prints what it did for a person', async () => {
    const r = await runCommand(['hooks', 'install', 'claude-code'], {env: h.env})

    expect(r.code).toBe(0)
    expect(r.stdout).toContain("Installed cast's hooks for Claude Code in ~/.claude/settings.json (new file)")
    expect(r.stdout).toContain(`command   CAST_HOME='${h.castHome}' ${HOOK_BIN} claude_code`)
    const status = await runCommand(['hooks', 'status', 'claude-code'], {env: h.env})
    expect(status.stdout).toContain('Claude Code   installed')
    expect(status.stdout).toContain(`events    ${CLAUDE_EVENTS.length}/${CLAUDE_EVENTS.length}`)
    expect(status.stdout).toContain('(ok)')
  })

  it('honours CLAUDE_CONFIG_DIR', async () => {
    const dir = path.join(h.dir, 'claude-alt')
    const env = {...h.env, CLAUDE_CONFIG_DIR: dir}

    const r = json(await runCommand(['hooks', 'install', 'claude', '--json'], {env}))

    expect(r.file).toBe(path.join(dir, 'settings.json'))
    expect(commandsOf(read(path.join(dir, 'settings.json')), 'Stop')).toHaveLength(1)
    expect(fs.existsSync(settingsPath())).toBe(false)
  })

  it('refuses a malformed settings file with exit 1 and leaves it untouched', async () => {
    const broken = '{"model": "opus",\n  "hooks": {\n'
    writeFile(settingsPath(), broken)

    const r = await runCommand(['hooks', 'install', 'claude-code'], {env: h.env})
    const rj = await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env})
    const un = await runCommand(['hooks', 'uninstall', 'claude-code'], {env: h.env})
    const status = json(await runCommand(['hooks', 'status', 'claude-code', '--json'], {env: h.env}))

    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/settings\.json is not valid JSON .*Nothing was changed\./)
    expect(rj.code).toBe(1)
    expect(json(rj).error.exit_code).toBe(1)
    expect(un.code).toBe(1)
    expect(fs.readFileSync(settingsPath(), 'utf8')).toBe(broken)
    expect(backupsOf(settingsPath())).toEqual([])
    expect(status.agents[0]).toMatchObject({state: 'error'})
  })

  it('refuses a hooks entry that is not a list, untouched', async () => {
    const odd = JSON.stringify({hooks: {Stop: 'echo hi'}})
    writeFile(settingsPath(), odd)

    const r = await runCommand(['hooks', 'install', 'claude-code'], {env: h.env})

    expect(r.code).toBe(1)
    expect(r.stderr).toContain('"hooks.Stop" is not a list')
    expect(fs.readFileSync(settingsPath(), 'utf8')).toBe(odd)
  })

  it('replaces a stale entry (another CAST_HOME) instead of adding a second one', async () => {
    await runCommand(['hooks', 'install', 'claude-code'], {env: {...h.env, CAST_HOME: path.join(h.dir, 'old-store')}})

    const stale = json(await runCommand(['hooks', 'status', 'claude-code', '--json'], {env: h.env}))
    const r = json(await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env}))
    const fresh = json(await runCommand(['hooks', 'status', 'claude-code', '--json'], {env: h.env}))

    expect(stale.agents[0]).toMatchObject({state: 'stale', cast_home: path.join(h.dir, 'old-store')})
    expect(stale.agents[0].events_stale).toEqual(CLAUDE_EVENTS)
    expect(r).toMatchObject({added: [], updated: CLAUDE_EVENTS})
    expect(fresh.agents[0]).toMatchObject({state: 'installed', cast_home: h.castHome})
    for (const event of CLAUDE_EVENTS) expect(commandsOf(read(settingsPath()), event)).toEqual([r.command])
  })

  it('writes through a symlinked settings.json (dotfiles) and keeps the link', async () => {
    const target = path.join(h.dir, 'dotfiles', 'claude-settings.json')
    writeFile(target, JSON.stringify({model: 'opus'}))
    fs.mkdirSync(path.dirname(settingsPath()), {recursive: true})
    fs.symlinkSync(target, settingsPath())

    await runCommand(['hooks', 'install', 'claude-code'], {env: h.env})

    expect(fs.lstatSync(settingsPath()).isSymbolicLink()).toBe(true)
    expect(commandsOf(read(target), 'PermissionRequest')).toHaveLength(1)
    expect(read(target).model).toBe('opus')
  })

  it('--dry-run shows the result and writes nothing', async () => {
    writeFile(settingsPath(), JSON.stringify(USER_SETTINGS))

    const r = json(await runCommand(['hooks', 'install', 'claude-code', '--dry-run', '--json'], {env: h.env}))

    expect(r).toMatchObject({dry_run: true, changed: true, backup: null})
    expect(JSON.parse(r.preview).hooks.PermissionRequest).toHaveLength(1)
    expect(read(settingsPath())).toEqual(USER_SETTINGS)
    expect(backupsOf(settingsPath())).toEqual([])
  })

  it('a PermissionRequest through the installed command puts the session in Questions, reason approval', async () => {
    const sessionId = '7d3c2b1a-0f9e-4d8c-b7a6-112233445566'
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd, {recursive: true})
    const transcript = claudeTranscriptPath(h.home, cwd, sessionId)
    writeFile(transcript, claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'run the tests', sessionId, settled: false}))
    const installed = json(await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env}))
    const command: string = read(settingsPath()).hooks.PermissionRequest[0].hooks[0].command
    expect(command).toBe(installed.command)
    const listed = json(await runCommand(['sessions', '--json'], {env: h.env}))
    expect(listed.sessions.find((s: any) => s.native_id === sessionId)?.bucket).not.toBe('questions')

    // The agent's environment need not carry CAST_HOME: the command has it.
    const agentEnv = {HOME: h.home, PATH: h.env.PATH!}
    const hook = runHook(
      command,
      {
        cwd,
        hook_event_name: 'PermissionRequest',
        session_id: sessionId,
        tool_input: {command: 'npm test'},
        tool_name: 'Bash',
        transcript_path: transcript,
      },
      agentEnv,
    )
    expect(hook.status).toBe(0)
    expect(fs.readdirSync(path.join(h.castHome, 'spool')).filter((n) => n.endsWith('.claude_code.json'))).toHaveLength(1)

    const after = json(await runCommand(['sessions', '--json'], {env: h.env}))
    const row = after.sessions.find((s: any) => s.native_id === sessionId)
    expect(row).toMatchObject({bucket: 'questions', reason: 'approval', state: 'needs_input'})
  })

  // A full sync must not forget the spool's `hooks://<agent>` rows as vanished files
  // (src/core/ingest/engine.ts, the "forget what vanished" loop): nothing answered the prompt.
  it('the approval is still there on the next look', async () => {
    const sessionId = '9c8b7a6d-5e4f-4321-9abc-def012345678'
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd, {recursive: true})
    writeFile(
      claudeTranscriptPath(h.home, cwd, sessionId),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'ship it', sessionId, settled: false}),
    )
    const installed = json(await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env}))
    runHook(
      installed.command,
      {cwd, hook_event_name: 'PermissionRequest', session_id: sessionId, tool_name: 'Bash'},
      {HOME: h.home, PATH: h.env.PATH!},
    )

    const first = json(await runCommand(['sessions', '--json'], {env: h.env}))
    const second = json(await runCommand(['sessions', '--json'], {env: h.env}))

    expect(first.sessions.find((s: any) => s.native_id === sessionId)).toMatchObject({bucket: 'questions', reason: 'approval'})
    expect(second.sessions.find((s: any) => s.native_id === sessionId)).toMatchObject({bucket: 'questions', reason: 'approval'})
  })

  it('a watcher (cast sessions -w --json) prints the approval a hook delivers', async () => {
    const sessionId = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd, {recursive: true})
    writeFile(
      claudeTranscriptPath(h.home, cwd, sessionId),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'deploy it', sessionId, settled: false}),
    )
    const installed = json(await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env}))
    await runCommand(['sessions', '--json'], {env: h.env})
    const db = new Database(path.join(h.castHome, 'cast.db'), {readonly: true})
    const seq = (db.prepare('SELECT coalesce(max(seq), 0) AS s FROM transitions').get() as {s: number}).s
    db.close()
    // --since: whether the watcher consumes the spool at start or live, the line is streamed.
    const watcher = startCast(['sessions', '-w', '--json', '--since', String(seq)], h.env)
    try {
      const hook = runHook(
        installed.command,
        {cwd, hook_event_name: 'PermissionRequest', session_id: sessionId, tool_name: 'Bash'},
        {HOME: h.home, PATH: h.env.PATH!},
      )
      expect(hook.status).toBe(0)

      let line: any
      do line = JSON.parse(await watcher.nextLine(15_000))
      while (!(line.session_id === sessionId && line.to === 'needs_input'))

      expect(line).toMatchObject({bucket: 'questions', reason: 'approval', to: 'needs_input'})
    } finally {
      // How the watcher exits is watch mode's business (test/e2e/watch.test.ts); just end it.
      const kill = setTimeout(() => watcher.child.kill('SIGKILL'), 3000)
      await watcher.stop()
      clearTimeout(kill)
    }
  })

  it('the hook command exits 0 and spools while another process holds the database exclusively', async () => {
    await runCommand(['sessions', '--json'], {env: h.env}) // creates the store
    const installed = json(await runCommand(['hooks', 'install', 'claude-code', '--json'], {env: h.env}))
    const db = new Database(path.join(h.castHome, 'cast.db'))
    try {
      db.exec('BEGIN EXCLUSIVE')
      const hook = runHook(installed.command, {hook_event_name: 'Stop', session_id: 'locked-session'}, {HOME: h.home, PATH: h.env.PATH!})

      expect(hook.status).toBe(0)
      const spooled = fs.readdirSync(path.join(h.castHome, 'spool')).filter((n) => n.endsWith('.claude_code.json'))
      expect(spooled).toHaveLength(1)
      expect(JSON.parse(fs.readFileSync(path.join(h.castHome, 'spool', spooled[0]!), 'utf8'))).toEqual({
        hook_event_name: 'Stop',
        session_id: 'locked-session',
      })
    } finally {
      db.exec('ROLLBACK')
      db.close()
    }
  })
})

describe('cast hooks: Codex', () => {
  const TOML =
    '# my codex config\nmodel = "gpt-5-codex"\nargs_note = [\n  "a]", # a bracket in a string\n]\n\n[features]\nweb_search = true\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\n'

  it('adds lifecycle hooks to hooks.json and notify to config.toml; uninstall restores both exactly', async () => {
    const codexHome = path.join(h.home, '.codex')
    writeFile(path.join(codexHome, 'config.toml'), TOML)

    const r = json(await runCommand(['hooks', 'install', 'codex', '--json'], {env: h.env}))
    const toml = fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8')
    const hooks = read(path.join(codexHome, 'hooks.json'))
    const twice = json(await runCommand(['hooks', 'install', 'codex', '--json'], {env: h.env}))
    const status = json(await runCommand(['hooks', 'status', 'codex', '--json'], {env: h.env}))

    expect(r).toMatchObject({changed: true, file: path.join(codexHome, 'hooks.json'), toml: {result: 'installed'}})
    expect(Object.keys(hooks.hooks)).toEqual([
      'SessionStart',
      'SessionEnd',
      'UserPromptSubmit',
      'PreToolUse',
      'PermissionRequest',
      'PostToolUse',
      'PreModelRequest',
      'PostModelRequest',
      'Interrupt',
      'SubagentStart',
      'SubagentStop',
      'Stop',
    ])
    expect(hooks.hooks.PermissionRequest).toEqual([{hooks: [{type: 'command', command: r.command, timeout: 10}]}])
    // One line, at the top level (before the first table), the rest byte for byte.
    const notify = `notify = ["/usr/bin/env", "CAST_HOME=${h.castHome}", "${HOOK_BIN}", "codex"]`
    expect(toml).toBe(TOML.replace(']\n\n[features]', `]\n${notify}\n\n[features]`))
    expect(twice).toMatchObject({changed: false, toml: {result: 'unchanged'}})
    expect(status.agents[0]).toMatchObject({state: 'installed', toml: {state: 'installed'}})

    const un = json(await runCommand(['hooks', 'uninstall', 'codex', '--json'], {env: h.env}))

    expect(un).toMatchObject({deleted: true, toml: {result: 'removed'}})
    expect(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).toBe(TOML)
    expect(fs.existsSync(path.join(codexHome, 'hooks.json'))).toBe(false)
  })

  it("leaves the user's own notify alone, and the notify argv spools Codex's JSON argument", async () => {
    const codexHome = path.join(h.dir, 'codex-home')
    const env = {...h.env, CODEX_HOME: codexHome}
    const own = 'notify = ["terminal-notifier", "-title", "Codex"]\nmodel = "o3"\n'
    writeFile(path.join(codexHome, 'config.toml'), own)

    const r = json(await runCommand(['hooks', 'install', 'codex', '--json'], {env}))
    const un = json(await runCommand(['hooks', 'uninstall', 'codex', '--json'], {env}))

    expect(r.toml).toMatchObject({result: 'taken', value: '["terminal-notifier", "-title", "Codex"]'})
    expect(un.toml).toMatchObject({result: 'taken'})
    expect(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).toBe(own)

    // What Codex runs for notify: the argv plus one JSON argument.
    writeFile(path.join(codexHome, 'config.toml'), '')
    await runCommand(['hooks', 'install', 'codex'], {env})
    const line = fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8')
    const argv = JSON.parse(line.replace(/^notify = /, '')) as string[]
    const payload = {type: 'agent-turn-complete', 'thread-id': 'th-1', 'last-assistant-message': 'done'}
    execFileSync(argv[0]!, [...argv.slice(1), JSON.stringify(payload)], {env: {HOME: h.home, PATH: h.env.PATH!}, stdio: 'ignore'})
    const spooled = fs.readdirSync(path.join(h.castHome, 'spool')).filter((n) => n.endsWith('.codex.json'))
    expect(spooled).toHaveLength(1)
    expect(read(path.join(h.castHome, 'spool', spooled[0]!))).toEqual(payload)
  })
})

describe('cast hooks: Gemini CLI, Cursor, Copilot CLI', () => {
  it('Gemini: merges into settings.json (tabs kept), honours GEMINI_CLI_HOME, round-trips', async () => {
    const gh = path.join(h.dir, 'gemini-home')
    const env = {...h.env, GEMINI_CLI_HOME: gh}
    const file = path.join(gh, '.gemini', 'settings.json')
    const user = {
      theme: 'Dracula',
      hooks: {BeforeTool: [{matcher: 'run_shell_command', hooks: [{type: 'command', command: './guard.sh'}]}]},
    }
    writeFile(file, JSON.stringify(user, null, '\t') + '\n')

    const r = json(await runCommand(['hooks', 'install', 'gemini', '--json'], {env}))
    const text = fs.readFileSync(file, 'utf8')
    const doc = JSON.parse(text)

    expect(r.file).toBe(file)
    expect(text).toContain('\n\t"theme": "Dracula"')
    expect(Object.keys(doc.hooks)).toEqual([
      'BeforeTool',
      'SessionStart',
      'BeforeAgent',
      'AfterTool',
      'Notification',
      'AfterAgent',
      'PreCompress',
      'SessionEnd',
    ])
    expect(doc.hooks.BeforeTool[0]).toEqual(user.hooks.BeforeTool[0])
    expect(doc.hooks.Notification).toEqual([{hooks: [{name: 'cast', type: 'command', command: r.command, timeout: 10_000}]}])

    await runCommand(['hooks', 'uninstall', 'gemini'], {env})
    expect(read(file)).toEqual(user)
  })

  it('Cursor: ~/.cursor/hooks.json with version 1, user hooks kept', async () => {
    const file = path.join(h.home, '.cursor', 'hooks.json')
    const user = {version: 1, hooks: {afterFileEdit: [{command: './format.sh'}], stop: [{command: 'say done', loop_limit: 3}]}}
    writeFile(file, JSON.stringify(user, null, 2))

    const r = json(await runCommand(['hooks', 'install', 'cursor', '--json'], {env: h.env}))
    const doc = read(file)

    expect(r.added).toEqual(['sessionStart', 'beforeSubmitPrompt', 'preToolUse', 'postToolUse', 'afterAgentResponse', 'stop', 'sessionEnd'])
    expect(doc.hooks.stop).toEqual([{command: 'say done', loop_limit: 3}, {command: r.command}])
    expect(doc.hooks.afterFileEdit).toEqual(user.hooks.afterFileEdit)

    const un = json(await runCommand(['hooks', 'uninstall', 'cursor', '--json'], {env: h.env}))
    expect(un.deleted).toBe(false)
    expect(read(file)).toEqual(user)
  })

  it('Copilot: its own file in the user hooks folder, PascalCase events, deleted on uninstall', async () => {
    const ch = path.join(h.dir, 'copilot-home')
    const env = {...h.env, COPILOT_HOME: ch}
    const file = path.join(ch, 'hooks', 'cast.json')
    writeFile(path.join(ch, 'hooks', 'mine.json'), '{"version":1,"hooks":{}}')

    const r = json(await runCommand(['hooks', 'install', 'copilot', '--json'], {env}))
    const doc = read(file)

    expect(r.file).toBe(file)
    expect(doc.version).toBe(1)
    expect(doc.hooks.Stop).toEqual([{type: 'command', bash: r.command, timeoutSec: 10}])
    expect(Object.keys(doc.hooks)).toContain('notification')

    const un = json(await runCommand(['hooks', 'uninstall', 'copilot', '--json'], {env}))
    expect(un.deleted).toBe(true)
    expect(fs.readdirSync(path.join(ch, 'hooks'))).toEqual(['mine.json'])
  })

  it('names agents without shell hooks, and unknown ones, as usage errors', async () => {
    const pi = await runCommand(['hooks', 'install', 'pi'], {env: h.env})
    const nope = await runCommand(['hooks', 'install', 'vim'], {env: h.env})
    const st = await runCommand(['hooks', 'status', 'opencode', '--json'], {env: h.env})

    expect(pi.code).toBe(2)
    expect(pi.stderr).toContain('pi has no shell hooks')
    expect(nope.code).toBe(2)
    expect(nope.stderr).toContain('Unknown agent "vim"')
    expect(st.code).toBe(2)
    expect(json(st).error.exit_code).toBe(2)
  })
})
