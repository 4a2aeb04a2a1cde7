import type {WorkState} from '../core/model/types.js'
import {PLAIN, type RenderStyle} from './views.js'

/** Colour only on a TTY and never with NO_COLOR (DESIGN §6). */
export async function terminalStyle(): Promise<RenderStyle> {
  if (!process.stdout.isTTY || process.env.NO_COLOR !== undefined) return PLAIN
  const {default: chalk} = await import('chalk')
  const colours: Record<WorkState, (s: string) => string> = {
    dormant: chalk.blue,
    done: chalk.green,
    idle: chalk.gray,
    needs_input: chalk.yellow,
    working: chalk.cyan,
  }
  return {bold: chalk.bold, dim: chalk.dim, state: (st, s) => colours[st](s)}
}
