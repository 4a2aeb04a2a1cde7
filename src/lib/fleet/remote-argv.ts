// ssh joins its trailing arguments with spaces into one command line that the
// remote login shell parses (ssh(1), "COMMAND"). Each argument is therefore
// quoted for POSIX sh so that it arrives on the remote as exactly one word.

/** One argument as a single-quoted sh word: `'` becomes `'\''`. */
export function shQuote(arg: string): string {
  if (arg.includes('\0')) throw new Error('argument contains a NUL byte')
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

/** The remote command line for `cast <verb> --json -- ...args`. */
export function remoteCastCommand(verb: string, args: readonly string[]): string {
  if (!/^[a-z][a-z-]*$/.test(verb)) throw new Error(`not a cast verb: ${JSON.stringify(verb)}`)
  return ['cast', verb, '--json', '--', ...args].map(shQuote).join(' ')
}
