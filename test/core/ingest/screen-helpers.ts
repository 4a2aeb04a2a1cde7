/**
 * A real tmux server per test (`tmux -L <unique socket>` in a socket folder of its own, its own
 * TMUX_TMPDIR, so a sweep sees this server only and never the developer's own tmux servers and
 * agents; killed after) whose panes run small
 * scripts named like the agents (`claude`, `codex`, `pi`): each prints a screen from a file and
 * reprints it when the file changes, so a test can show a permission dialog, then a spinner,
 * then a prompt, in the same process.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export const TMUX = fs.existsSync('/usr/bin/tmux') ? '/usr/bin/tmux' : 'tmux'

export interface FakePane {
  readonly id: string
  readonly pid: number
  readonly screenFile: string
  show(text: string): void
}

export class TmuxServer {
  readonly name: string
  readonly socket: string
  /** This server's TMUX_TMPDIR (short: a socket path must fit in sun_path). */
  readonly tmpdir: string
  private first = true

  constructor(
    private readonly dir: string,
    tag: string,
  ) {
    this.name = `cast-${tag}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
    this.tmpdir = fs.mkdtempSync('/tmp/cts-')
    const uid = process.getuid?.() ?? 0
    this.socket = path.join(this.tmpdir, `tmux-${uid}`, this.name)
  }

  /** The environment cast needs to talk to this server (as a user inside it would have), and to no other. */
  get env(): Record<string, string> {
    return {
      PATH: `${path.dirname(TMUX)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      TMUX: `${this.socket},1,0`,
      TMUX_TMPDIR: this.tmpdir,
    }
  }

  private get clientEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {...process.env, TMUX_TMPDIR: this.tmpdir}
    delete env.TMUX
    return env
  }

  tmux(...args: string[]): string {
    return execFileSync(TMUX, ['-L', this.name, ...args], {encoding: 'utf8', env: this.clientEnv})
  }

  /**
   * A pane running `bin/<name>` in `cwd`: it prints the screen file and keeps doing so as it
   * changes. `hold` is a file the script keeps open (as Codex holds its rollout).
   */
  pane(name: string, cwd: string, screen: string, options: {hold?: string} = {}): FakePane {
    const bin = path.join(this.dir, 'bin', name)
    fs.mkdirSync(path.dirname(bin), {recursive: true})
    if (!fs.existsSync(bin)) {
      fs.writeFileSync(
        bin,
        [
          // bash builtins only, no child processes: a fork would briefly be a second process
          // of the same name holding the same files open.
          '#!/bin/bash',
          '[ -n "$2" ] && exec 3<"$2"',
          'last=""',
          'while :; do',
          '  mapfile -t lines < "$1" 2>/dev/null',
          '  printf -v cur \'%s\\n\' "${lines[@]}"',
          `  if [ "$cur" != "$last" ]; then printf '\\033[H\\033[2J%s' "$cur"; last=$cur; fi`,
          '  read -r -t 0.1 _ || true',
          'done',
          '',
        ].join('\n'),
        {mode: 0o755},
      )
    }

    const screenFile = path.join(this.dir, `screen-${Math.random().toString(36).slice(2, 8)}.txt`)
    fs.writeFileSync(screenFile, screen)
    fs.mkdirSync(cwd, {recursive: true})
    const argv = [bin, screenFile, ...(options.hold ? [options.hold] : [])]
    const format = ['-P', '-F', '#{pane_id}\t#{pane_pid}']
    const out = this.first
      ? this.tmux('new-session', '-d', ...format, '-s', 'main', '-x', '120', '-y', '40', '-c', cwd, '--', ...argv)
      : this.tmux('new-window', '-d', ...format, '-t', 'main:', '-c', cwd, '--', ...argv)
    this.first = false
    const [id, pid] = out.trim().split('\t')
    return {
      id: id!,
      pid: Number(pid),
      screenFile,
      show: (text: string) => fs.writeFileSync(screenFile, text),
    }
  }

  /** Wait until the pane shows `text` (the script redraws within 100 ms). */
  async waitFor(pane: FakePane, text: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (this.tmux('capture-pane', '-p', '-J', '-t', pane.id).includes(text)) return
      await new Promise((r) => setTimeout(r, 50))
    }

    throw new Error(`pane ${pane.id} never showed ${JSON.stringify(text)}`)
  }

  kill(): void {
    try {
      execFileSync(TMUX, ['-L', this.name, 'kill-server'], {env: this.clientEnv, stdio: 'ignore'})
    } catch {
      // already gone
    }

    // A killed server can leave its socket file behind.
    fs.rmSync(this.tmpdir, {force: true, recursive: true})
  }
}

/** Screens as the agents draw them (agent-formats §11). */
export const SCREENS = {
  claudeApproval: [
    '⏺ Bash(rm -rf build)',
    '  ⎿  Running…',
    '',
    '────────────────────────────────────────────────────────────',
    ' Bash command',
    '',
    '   rm -rf build',
    '   Remove the stale build directory',
    '',
    ' Do you want to proceed?',
    ' ❯ 1. Yes',
    "   2. Yes, and don't ask again for rm commands in /home/dev/app",
    '   3. No, and tell Claude what to do differently (esc)',
    '',
    ' Esc to cancel · Tab to add additional instructions',
  ].join('\n'),
  claudeBusy: [
    '⏺ Bash(rm -rf build)',
    '  ⎿  (No content)',
    '',
    '✢ Hullaballooing… (53s · ↓ 749 tokens · esc to interrupt)',
    '',
    '> ',
    '  ? for shortcuts',
  ].join('\n'),
  claudeError: [
    '> fix the login flow',
    '',
    '⏺ API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired."}} · Please run /login',
    '',
    '> ',
    '  ? for shortcuts',
  ].join('\n'),
  codexApproval: [
    '• I will run the migrations.',
    '',
    '  Would you like to run the following command?',
    '',
    '  $ psql -f migrations/0008_uuid.sql',
    '',
    '› 1. Yes, proceed (y)',
    "  2. Yes, and don't ask again for commands that start with `psql` (a)",
    '  3. No, and tell Codex what to do differently (esc)',
    '',
    '  Press enter to confirm or esc to cancel',
  ].join('\n'),
  codexBusy: [
    '• Ran psql -f migrations/0008_uuid.sql',
    '',
    '• Working (12s • esc to interrupt)',
    '',
    '› Ask Codex to do anything',
    '',
    '  gpt-5.5 medium · 94% left · ~/api',
  ].join('\n'),
  codexIdle: [
    '• Migrated users to UUID keys.',
    '',
    '─ Worked for 12s ─────────────────────',
    '',
    '› Ask Codex to do anything',
    '',
    '  gpt-5.5 medium · 90% left · ~/api',
  ].join('\n'),
  piBusy: [' Reading src/auth.ts', '', ' ⠙ Working... (esc to interrupt)'].join('\n'),
  piError: [' Error: 429 rate_limit_error: This request would exceed your rate limit'].join('\n'),
}
