/**
 * An empty or relative HOME (HOME= in a cron line, `env -i`, a container) must not put the store
 * and the agents' folders under the current folder: cast uses the passwd entry's home.
 */
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

import {castHome, homeDir} from '../../src/lib/home/env.js'

describe('the home folder', () => {
  const passwd = os.userInfo().homedir

  it('is HOME when HOME is an absolute path', () => {
    expect(homeDir({HOME: '/home/ana'})).toBe('/home/ana')
    expect(castHome({HOME: '/home/ana'})).toBe('/home/ana/.local/share/cast')
  })

  it("is the passwd entry's home when HOME is empty, unset or relative, never the current folder", () => {
    for (const env of [{HOME: ''}, {}, {HOME: '.'}, {HOME: 'home'}]) {
      expect(homeDir(env)).toBe(passwd)
      expect(castHome(env)).toBe(path.join(passwd, '.local', 'share', 'cast'))
      expect(path.isAbsolute(castHome(env))).toBe(true)
    }
  })
})
