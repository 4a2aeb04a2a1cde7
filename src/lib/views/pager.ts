/**
 * Long human output on a terminal goes through a pager, as git and gh do: CAST_PAGER, else PAGER,
 * else `less -FRX` (-F: quit at once when it fits, -R: colours, -X: leave the text on the screen).
 * `CAST_PAGER=` (empty) or `cat` and `--no-pager` turn it off. Only when stdout is a terminal and
 * the text is taller than it: never in a pipe, a file, --json or a watch stream.
 */
import {spawn} from 'node:child_process'

import type {Env} from '../home/env.js'

/** The pager's command line, or null when paging is off. */
export function pagerCommand(env: Env): string | null {
  const chosen =
    env.CAST_PAGER !== undefined ? env.CAST_PAGER : env.PAGER !== undefined && env.PAGER.trim() !== '' ? env.PAGER : 'less -FRX'
  const cmd = chosen.trim()
  return cmd === '' || cmd === 'cat' ? null : cmd
}

export interface PageTarget {
  readonly isTTY?: boolean
  readonly rows?: number
}

/** True when `text` should be paged: a terminal, a pager, and more lines than the terminal has rows. */
export function shouldPage(text: string, env: Env, out: PageTarget, enabled = true): boolean {
  if (!enabled || out.isTTY !== true || pagerCommand(env) === null) return false
  const rows = out.rows ?? 0
  if (rows <= 0) return false
  let lines = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < text.length - 1; i = text.indexOf('\n', i + 1)) lines++
  return lines > rows - 1
}

/**
 * Write `text` (ending in a newline) through the pager; resolves when the pager exits. When the
 * pager cannot be started (not installed: exit 127), the text is written to stdout instead.
 */
export async function page(text: string, env: Env): Promise<void> {
  const cmd = pagerCommand(env)!
  // less reads LESS; git sets it the same way when unset. `less -FRX` from the default carries them.
  const childEnv = {...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c'} as NodeJS.ProcessEnv
  // The pager owns the terminal while it runs: Ctrl-C is its to handle (less ignores it), not ours.
  const ignore = (): void => {}
  process.on('SIGINT', ignore)
  try {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('/bin/sh', ['-c', cmd], {env: childEnv, stdio: ['pipe', 'inherit', 'inherit']})
      child.on('error', () => resolve(127))
      child.on('close', (c) => resolve(c))
      // q before the end closes the pipe: that is not an error.
      child.stdin.on('error', () => {})
      child.stdin.end(text)
    })
    if (code === 127 || code === 126) process.stdout.write(text)
  } finally {
    process.off('SIGINT', ignore)
  }
}
