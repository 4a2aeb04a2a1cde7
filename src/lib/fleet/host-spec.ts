// `cast hosts add NAME [user@]host[:port]`: the parsed spec and the ssh argv
// that reaches it. The person's own ssh config and agent apply (no -F, no -i).

export interface HostSpec {
  name: string
  user?: string
  host: string
  port?: number
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/
// No leading dash (ssh would read it as an option), no spaces or shell bytes.
const HOST = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/
const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

/** Parses NAME and [user@]host[:port]; throws one clear line when malformed. */
export function parseHostSpec(name: string, target: string): HostSpec {
  if (!NAME.test(name)) throw new Error(`host name must be lowercase letters, digits, - or _: ${JSON.stringify(name)}`)
  const m = /^(?:([^@]+)@)?([^:@]+)(?::(\d{1,5}))?$/.exec(target)
  if (!m) throw new Error(`expected [user@]host[:port], got ${JSON.stringify(target)}`)
  const [, user, host = '', port] = m
  if (user !== undefined && !USER.test(user)) throw new Error(`not a user name: ${JSON.stringify(user)}`)
  if (!HOST.test(host)) throw new Error(`not a host name: ${JSON.stringify(host)}`)
  const spec: HostSpec = {name, host}
  if (user !== undefined) spec.user = user
  if (port !== undefined) {
    const p = Number(port)
    if (p < 1 || p > 65535) throw new Error(`port out of range: ${port}`)
    spec.port = p
  }
  return spec
}

/**
 * argv for ssh (without the remote command): -T, BatchMode, a connect timeout. `extra` goes
 * before the destination (e.g. `-F FILE` when CAST_SSH_CONFIG names another ssh config).
 */
export function sshArgv(spec: HostSpec, connectTimeoutSec = 5, extra: readonly string[] = []): string[] {
  const argv = ['-T', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectTimeoutSec}`, ...extra]
  if (spec.port !== undefined) argv.push('-p', String(spec.port))
  argv.push('--', spec.user !== undefined ? `${spec.user}@${spec.host}` : spec.host)
  return argv
}
