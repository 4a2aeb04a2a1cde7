/**
 * `cast sesions`: name the nearest command or topic and exit 2 (usage), as gh and kubectl do.
 * @oclif/plugin-not-found 4.x needs Node 22 (`npm view @oclif/plugin-not-found engines`), and
 * 3.x asks y/n on a TTY and exits 127; this hook keeps to cast's exit table and, under --json,
 * prints the one error envelope.
 */
import type {Hook} from '@oclif/core'

import {errorEnvelope, humanError} from '../lib/cli/errors.js'
import {EXIT} from '../lib/base/exit-codes.js'
import {nearest} from '../lib/base/nearest.js'

export {distance, nearest} from '../lib/base/nearest.js'

const hook: Hook.CommandNotFound = async function (opts) {
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  const topics = opts.config.topics.map((t) => t.name)
  const all = [...new Set([...ids, ...topics])]
  const typed = opts.id
  // oclif joins the arguments into the id (`hooks:instal:<agent>`): name the topics and the first unknown word.
  const parts = typed.split(':')
  let keep = 1
  while (keep < parts.length && topics.includes(parts.slice(0, keep).join(':'))) keep++
  const shown = parts.slice(0, keep).join(' ')
  const near = nearest(parts.slice(0, Math.max(keep, 1)).join(':'), all).map((id) => `cast ${id.replaceAll(':', ' ')}`)
  const argv = opts.argv ?? []
  const dash = argv.indexOf('--')
  const json = typed === '--json' || (dash === -1 ? argv : argv.slice(0, dash)).includes('--json')
  // `cast --json`, `cast --jsn`: a flag where the command goes. `cast --json sessions` runs
  // `cast sessions --json`, as `git --no-pager log` does.
  const flagFirst = typed.startsWith('-')
  if (flagFirst && !typed.includes(':')) {
    for (let n = Math.min(argv.length, 3); n > 0; n--) {
      const id = argv.slice(0, n).join(':')
      if (ids.includes(id)) return opts.config.runCommand(id, [...argv.slice(n), typed])
    }
  }

  // `cast sessions grjaguv`: a command that takes no argument, given one (oclif looks for a
  // command "sessions grjaguv"). Say so; a word that looks like a session id gets `cast explain`.
  let n = parts.length - 1
  while (n > 0 && !ids.includes(parts.slice(0, n).join(':'))) n--
  const command = n > 0 ? parts.slice(0, n).join(':') : null
  const extra = command === null ? [] : parts.slice(n)
  let message = flagFirst
    ? `cast needs a command before ${typed.split(':')[0]} (for example: cast sessions ${typed.split(':')[0]}).`
    : `"${shown}" is not a cast command.`
  let suggestions =
    near.length > 0 && !flagFirst
      ? [`Did you mean: ${near.join(', ')}?`, 'Run "cast help" for every command.']
      : ['Run "cast help" for every command.']
  if (command !== null && extra.length > 0) {
    const words = `cast ${command.replaceAll(':', ' ')}`
    message = `${words} takes no argument ${extra.map((a) => JSON.stringify(a)).join(', ')}.`
    const id = extra.find((a) => /^[a-z0-9][a-z0-9-]{3,}$/i.test(a))
    suggestions = [...(id ? [`To see that session: cast explain ${id}`] : []), `See: ${words} --help`]
  }

  if (json) process.stdout.write(JSON.stringify(errorEnvelope(message, EXIT.USAGE, suggestions)) + '\n')
  else process.stderr.write(humanError(message, suggestions))
  process.exitCode = EXIT.USAGE
}

export default hook
