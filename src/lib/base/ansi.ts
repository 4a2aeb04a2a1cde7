/** Text without its colour sequences (oclif's messages carry them even in a pipe). */
export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001B\[[0-?]*[ -/]*[@-~]/g, '')
}
