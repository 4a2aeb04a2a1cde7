import {describe, expect, it} from 'vitest'
import {parseHostSpec, sshArgv} from '../../src/lib/fleet/host-spec.js'

describe('host spec', () => {
  it('parses user@host:port and builds a BatchMode ssh argv ending in -- destination', () => {
    const spec = parseHostSpec('laptop', 'me@127.0.0.1:2222')
    expect(spec).toEqual({name: 'laptop', user: 'me', host: '127.0.0.1', port: 2222})
    expect(sshArgv(spec)).toEqual(['-T', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-p', '2222', '--', 'me@127.0.0.1'])
    expect(sshArgv(parseHostSpec('box', 'box-alias'))).toContain('box-alias')
  })

  it('refuses a destination that ssh would read as an option, and bad names', () => {
    expect(() => parseHostSpec('x', '-oProxyCommand=touch /tmp/p')).toThrow(/host name/)
    expect(() => parseHostSpec('x', '-oProxyCommand=x@h')).toThrow(/user name/)
    expect(() => parseHostSpec('x', 'h:99999')).toThrow(/port/)
    expect(() => parseHostSpec('Bad Name', 'h')).toThrow(/host name must/)
    expect(() => parseHostSpec('x', 'h;rm')).toThrow(/host name/)
  })
})
