import {describe, expect, it} from 'vitest'

import {bottomLines, compilePattern, compileScreenPatterns, matchScreen, SCREEN_PATTERNS, screenMatcher} from '../../src/adapters/screen.js'
import type {Agent} from '../../src/core/model/types.js'

const {patterns} = compileScreenPatterns()
const of = (agent: Agent) => patterns.find((p) => p.agent === agent)!

/** Screens as `tmux capture-pane -p -J` returns them: the visible rows, blank rows included. */
const S = {
  claudeApproval: `
⏺ I'll clean the build output first.

⏺ Bash(rm -rf build)
  ⎿  Running…

────────────────────────────────────────────────────────────────────────────────
 Bash command

   rm -rf build
   Remove the stale build directory

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for rm commands in /home/dev/app
   3. No, and tell Claude what to do differently (esc)

 Esc to cancel · Tab to add additional instructions


`,
  claudeApprovalPlain: `
 Do you want to proceed?
 ❯ 1. Yes
   2. No, and tell Claude what to do differently (esc)
`,
  claudeApprovalBoxed: `
╭──────────────────────────────────────────────────────────────╮
│ Edit file                                                    │
│ ╭──────────────────────────────────────────────────────────╮ │
│ │ src/parser.ts                                            │ │
│ │   12 -  return null                                      │ │
│ │   12 +  return undefined                                 │ │
│ ╰──────────────────────────────────────────────────────────╯ │
│ Do you want to make this edit to parser.ts?                  │
│ ❯ 1. Yes                                                     │
│   2. Yes, allow all edits during this session (shift+tab)    │
│   3. No, and tell Claude what to do differently (esc)        │
╰──────────────────────────────────────────────────────────────╯
`,
  claudeBusy: `
⏺ Reading the parser and its tests.

✢ Hullaballooing… (53s · ↓ 749 tokens · esc to interrupt)

╭──────────────────────────────────────────────────────────────╮
│ >                                                            │
╰──────────────────────────────────────────────────────────────╯
  ? for shortcuts
`,
  claudeBusyNew: `
⏺ Update(src/parser.ts)
  ⎿  Updated src/parser.ts with 1 addition

✻ Percolating… (12s · ↑ 1.2k tokens)

────────────────────────────────────────────────
> 
────────────────────────────────────────────────
  ⏵⏵ accept edits on (shift+tab to cycle)
`,
  claudeError: `
> fix the login flow

⏺ API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired."}} · Please run /login

╭──────────────────────────────────────────────────────────────╮
│ >                                                            │
╰──────────────────────────────────────────────────────────────╯
  ? for shortcuts
`,
  claudeErrorInToolOutput: `
⏺ Bash(curl -s localhost:8080/health)
  ⎿  API Error: 500 upstream timeout

⏺ The health endpoint returns a 500; the upstream times out.

────────────────────────────────────────────────
> 
────────────────────────────────────────────────
`,
  claudeIdle: `
⏺ Done: the parser now returns undefined for empty input, and the tests pass.

────────────────────────────────────────────────
> 
────────────────────────────────────────────────
  ? for shortcuts
`,
  claudeQuestion: `
☐ Database

Which database should the new service use?

❯ 1. PostgreSQL
     The team runs it already
  2. SQLite
     One file, no server
  3. Type something.

Enter to select · ↑/↓ to navigate · Esc to cancel
`,
  claudeTrust: `
 Do you trust the files in this folder?

 /home/dev/downloads/unknown-repo

 Claude Code may read, write, or execute files contained in this directory.

 ❯ 1. Yes, proceed
   2. No, exit

 Enter to confirm · Esc to exit
`,
  codexApproval: `
• I'll run the tests to see what fails.

  Would you like to run the following command?

  Reason: the tests need network access to fetch fixtures

  $ pnpm test --filter api

› 1. Yes, proceed (y)
  2. Yes, and don't ask again for commands that start with \`pnpm test\` (a)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel
`,
  codexBusy: `
› migrate the users table to UUID keys

• Explored
  └ Read schema.sql, 0007_users.sql

• Working (12s • esc to interrupt)

› Ask Codex to do anything

  gpt-5.5 medium · 94% left · ~/projects/api
`,
  codexError: `
› deploy the preview

■ stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)

› Ask Codex to do anything

  gpt-5.5 medium · 91% left · ~/projects/api
`,
  codexIdle: `
• Migrated users to UUID keys; legacy ids are kept in legacy_id.

─ Worked for 1m 12s ──────────────────────────────────────────────

› Ask Codex to do anything

  gpt-5.5 medium · 88% left · ~/projects/api
`,
  codexQuestion: `
  Which environment should I deploy to?

  › 1. staging
    2. production

  enter to submit answer · esc to cancel
`,
  copilotApproval: `
 Run command

 npm run build

 Do you want to run this command?
 ❯ 1. Yes
   2. Yes, and approve \`npm\` for the rest of the running session
   3. No, and tell Copilot what to do differently (Esc)

 Confirm with number keys or ↑↓ keys and Enter, Cancel with Esc
`,
  copilotBusy: `
 ● Reading package.json

 ◐ Working (4s · esc to interrupt)
`,
  copilotIdle: `
 ● The build passes now.

 ❯
 / commands · ? help
`,
  cursorApproval: `
  Run this command?
  npm test -- --watch=false
  Run (y) (enter)   Skip (esc or n)   Auto-run everything (shift+tab)
`,
  cursorBusy: `
  ⬢ Reading… src/index.ts
  ctrl+c to stop
`,
  cursorIdle: `
  Updated the handler and its test.

  How can I help you?
`,
  geminiApproval: `
╭──────────────────────────────────────────────────────────────────╮
│ ?  Shell npm test (Run the test suite)                           │
│                                                                  │
│ npm test                                                         │
│                                                                  │
│ Allow execution of: 'npm'?                                       │
│                                                                  │
│ ● 1. Allow once                                                  │
│   2. Allow for this session                                      │
│   3. No, suggest changes (esc)                                   │
╰──────────────────────────────────────────────────────────────────╯
`,
  geminiBusy: `
✦ Let me look at the failing test first.

⠏ Analyzing the test output (esc to cancel, 12s)

╭──────────────────────────────────────────────────────────────────╮
│ >   Type your message or @path/to/file                           │
╰──────────────────────────────────────────────────────────────────╯
`,
  geminiError: `
> summarize the repo

✕ [API Error: got status: 429 Too Many Requests. {"error":{"code":429,"message":"Resource exhausted"}}]

╭──────────────────────────────────────────────────────────────────╮
│ >   Type your message or @path/to/file                           │
╰──────────────────────────────────────────────────────────────────╯
`,
  geminiIdle: `
✦ The repo is a CLI with three packages.

╭──────────────────────────────────────────────────────────────────╮
│ >   Type your message or @path/to/file                           │
╰──────────────────────────────────────────────────────────────────╯
`,
  opencodeApproval: `
  △ Permission required
  → Bash: rm -rf dist

  Allow once   Allow always   Reject
`,
  opencodeBusy: `
  ┃ Refactor the router

  ⬝⬝⬝■■■  esc interrupt
`,
  opencodeIdle: `
  ┃ Ask anything... "Fix a TODO in the codebase"

  enter send   ctrl+p commands
`,
  opencodeQuestion: `
  Which package manager?
  1. pnpm
  2. npm

  ↑↓ select   enter submit   esc dismiss
`,
  piBusy: `
 Reading src/auth.ts

 ⠙ Working... (esc to interrupt)
`,
  piError: `
 Error: 429 rate_limit_error: This request would exceed your rate limit
`,
  piIdle: `
 The middleware now uses sessions.

 pi> 
`,
  plainShell: `
dev@box:~/app$ ls
README.md  package.json  src
dev@box:~/app$ 
`,
}

describe('matchScreen over captured screens of every agent', () => {
  it.each`
    agent            | screen                       | kind          | text
    ${'claude_code'} | ${S.claudeApproval}          | ${'approval'} | ${'rm -rf build'}
    ${'claude_code'} | ${S.claudeApprovalPlain}     | ${'approval'} | ${'Do you want to proceed?'}
    ${'claude_code'} | ${S.claudeApprovalBoxed}     | ${'approval'} | ${'parser.ts'}
    ${'claude_code'} | ${S.claudeTrust}             | ${'approval'} | ${'Do you trust the files in this folder?'}
    ${'claude_code'} | ${S.claudeQuestion}          | ${'question'} | ${'Which database should the new service use?'}
    ${'claude_code'} | ${S.claudeBusy}              | ${'busy'}     | ${'✢ Hullaballooing… (53s · ↓ 749 tokens · esc to interrupt)'}
    ${'claude_code'} | ${S.claudeBusyNew}           | ${'busy'}     | ${'✻ Percolating… (12s · ↑ 1.2k tokens)'}
    ${'claude_code'} | ${S.claudeError}             | ${'error'}    | ${'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired."}} · Please run /login'}
    ${'claude_code'} | ${S.claudeErrorInToolOutput} | ${'idle'}     | ${''}
    ${'claude_code'} | ${S.claudeIdle}              | ${'idle'}     | ${''}
    ${'codex'}       | ${S.codexApproval}           | ${'approval'} | ${'pnpm test --filter api'}
    ${'codex'}       | ${S.codexQuestion}           | ${'question'} | ${'enter to submit answer · esc to cancel'}
    ${'codex'}       | ${S.codexBusy}               | ${'busy'}     | ${'• Working (12s • esc to interrupt)'}
    ${'codex'}       | ${S.codexError}              | ${'error'}    | ${'stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)'}
    ${'codex'}       | ${S.codexIdle}               | ${'idle'}     | ${'─ Worked for 1m 12s ──────────────────────────────────────────────'}
    ${'gemini'}      | ${S.geminiApproval}          | ${'approval'} | ${'Shell npm test (Run the test suite)'}
    ${'gemini'}      | ${S.geminiBusy}              | ${'busy'}     | ${'⠏ Analyzing the test output (esc to cancel, 12s)'}
    ${'gemini'}      | ${S.geminiError}             | ${'error'}    | ${'[API Error: got status: 429 Too Many Requests. {"error":{"code":429,"message":"Resource exhausted"}}]'}
    ${'gemini'}      | ${S.geminiIdle}              | ${'idle'}     | ${'Type your message or @path/to/file'}
    ${'opencode'}    | ${S.opencodeApproval}        | ${'approval'} | ${'Bash: rm -rf dist'}
    ${'opencode'}    | ${S.opencodeQuestion}        | ${'question'} | ${'Which package manager?'}
    ${'opencode'}    | ${S.opencodeBusy}            | ${'busy'}     | ${'⬝⬝⬝■■■ esc interrupt'}
    ${'opencode'}    | ${S.opencodeIdle}            | ${'idle'}     | ${'Ask anything... "Fix a TODO in the codebase"'}
    ${'copilot'}     | ${S.copilotApproval}         | ${'approval'} | ${'Do you want to run this command?'}
    ${'copilot'}     | ${S.copilotBusy}             | ${'busy'}     | ${'◐ Working (4s · esc to interrupt)'}
    ${'copilot'}     | ${S.copilotIdle}             | ${'idle'}     | ${'/ commands · ? help'}
    ${'cursor'}      | ${S.cursorApproval}          | ${'approval'} | ${'npm test -- --watch=false'}
    ${'cursor'}      | ${S.cursorBusy}              | ${'busy'}     | ${'ctrl+c to stop'}
    ${'cursor'}      | ${S.cursorIdle}              | ${'idle'}     | ${'How can I help you?'}
    ${'pi'}          | ${S.piBusy}                  | ${'busy'}     | ${'⠙ Working... (esc to interrupt)'}
    ${'pi'}          | ${S.piError}                 | ${'error'}    | ${'Error: 429 rate_limit_error: This request would exceed your rate limit'}
    ${'pi'}          | ${S.piIdle}                  | ${'idle'}     | ${'pi>'}
  `('$agent: $kind', ({agent, screen, kind, text}: {agent: Agent; screen: string; kind: string; text: string}) => {
    const m = matchScreen(screen, of(agent))

    expect(m).toEqual({kind, text})
  })

  it.each(SCREEN_PATTERNS.map((p) => p.agent))('%s: a plain shell prompt matches nothing', (agent) => {
    expect(matchScreen(S.plainShell, of(agent))).toBeNull()
  })

  it('an empty screen matches nothing', () => {
    expect(matchScreen('\n\n\n', of('claude_code'))).toBeNull()
  })

  it('reads only the bottom lines: an old dialog scrolled up does not count', () => {
    const screen = S.claudeApproval + Array.from({length: 30}, (_, i) => `⏺ line ${i} of the answer`).join('\n') + S.claudeIdle

    expect(matchScreen(screen, of('claude_code'))?.kind).toBe('idle')
  })

  it('strips escape sequences and frame borders before matching', () => {
    const screen = '\u001b[38;5;174m│\u001b[39m \u001b[1mDo you want to proceed?\u001b[22m   │\n│ \u001b[36m❯\u001b[39m 1. Yes   │\n'

    expect(bottomLines(screen)).toEqual([' Do you want to proceed?', ' ❯ 1. Yes'])
    expect(matchScreen(screen, of('claude_code'))).toEqual({kind: 'approval', text: 'Do you want to proceed?'})
  })
})

describe('screen patterns from the config', () => {
  it('a kind the config names replaces the built-in list; the others stay', () => {
    const m = screenMatcher({claude_code: {approval: [String.raw`/^\s*(Allow the robot\?)/i`]}})

    expect(m.match('claude_code', S.claudeApproval)?.kind).not.toBe('approval')
    expect(m.match('claude_code', '\n allow the robot?\n')).toEqual({kind: 'approval', text: 'allow the robot?'})
    expect(m.match('claude_code', S.claudeBusy)?.kind).toBe('busy')
  })

  it('an empty list switches a kind off; an agent name may be written with a dash', () => {
    const m = screenMatcher({'claude-code': {idle: []}})

    expect(m.match('claude_code', S.claudeIdle)).toBeNull()
  })

  it('an invalid pattern is left out and reported, never fatal', () => {
    const m = screenMatcher({codex: {busy: ['(unclosed', 'Working']}})

    expect(m.errors).toHaveLength(1)
    expect(m.errors[0]).toMatch(/^screen_patterns\.codex\.busy\.0: /)
    expect(m.match('codex', '\n Working hard\n')?.kind).toBe('busy')
  })

  it('an agent without built-in patterns can be given some, with its process names', () => {
    const m = screenMatcher({aider: {approval: [String.raw`\(Y\)es/\(N\)o`], processes: ['aider']}})

    expect(m.processes.get('aider')).toBe('aider')
    expect(m.match('aider' as Agent, 'Run shell command? (Y)es/(N)o [Yes]:')?.kind).toBe('approval')
  })

  it('every agent has process names, and every built-in pattern compiles', () => {
    expect(compileScreenPatterns().errors).toEqual([])
    for (const p of SCREEN_PATTERNS) expect(p.processes.length).toBeGreaterThan(0)
    expect(compilePattern('/esc to interrupt/i').flags).toBe('im')
    expect(compilePattern('esc to interrupt').flags).toBe('m')
  })
})
