import os from 'node:os'
import {describe, expect, it} from 'vitest'

import {deviceName} from '../../src/lib/home/env.js'

describe('the default device name', () => {
  it('is the host name plus the account, so two accounts on one host are two devices', () => {
    expect(deviceName({USER: 'ana'})).toBe(`${os.hostname()}:ana`)
    expect(deviceName({USER: 'ana'})).not.toBe(deviceName({USER: 'reviewer-bot'}))
    expect(deviceName({CAST_DEVICE: ' laptop ', USER: 'ana'})).toBe('laptop')
    expect(deviceName({USER: 'a b'})).toBe(`${os.hostname()}:a_b`)
  })
})
