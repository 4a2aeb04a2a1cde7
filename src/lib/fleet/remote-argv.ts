// ssh joins its trailing arguments with spaces into one command line that the
// remote login shell parses (ssh(1), "COMMAND"). Each argument is therefore
// quoted for POSIX sh so that it arrives on the remote as exactly one word.

/** One argument as a single-quoted sh word: `'` becomes `'\''`. */
export function shQuote(arg: string): string {
  if (arg.includes('\0')) throw new Error('argument contains a NUL byte')
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

/** A flag passed before `--`: its name checked, its value glued on with `=` (never read as another flag). */
const FLAG = /^--[a-z][a-z0-9-]*(=[\s\S]*)?$/

/**
 * The remote command line for `cast <verb> [--json] [flags] -- ...args`: `verb` may be several
 * words (`hosts test`, `--version`), each checked; `flags` are `--name` or `--name=value`; every
 * positional argument goes after `--`, so one starting with `-` is data.
 */
export function remoteCastCommand(
  verb: string,
  args: readonly string[],
  options: {flags?: readonly string[]; json?: boolean; separator?: boolean} = {},
): string {
  const words = verb.split(' ')
  for (const w of words) if (!/^(--)?[a-z][a-z-]*$/.test(w)) throw new Error(`not a cast verb: ${JSON.stringify(verb)}`)
  for (const f of options.flags ?? []) if (!FLAG.test(f)) throw new Error(`not a flag: ${JSON.stringify(f.slice(0, 40))}`)
  const argv = ['cast', ...words, ...(options.json === false ? [] : ['--json']), ...(options.flags ?? [])]
  if (options.separator !== false) argv.push('--', ...args)
  else if (args.length > 0) throw new Error('positional arguments go after --')
  return argv.map(shQuote).join(' ')
}
