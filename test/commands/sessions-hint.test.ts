import {afterEach, describe, expect, it} from 'vitest'
import {claudeLines, claudeTranscriptPath, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

let h: TempHome | undefined
afterEach(() => h?.cleanup())

describe('cast sessions: the line under an empty listing names a way out', () => {
  it('without --all it points to --all; under --all it points to the filters, not back to --all', async () => {
    h = makeHome()
    const cwd = '/home/me/src/app'
    writeFile(claudeTranscriptPath(h.home, cwd, 's-1'), claudeLines({at: new Date(), cwd, prompt: 'Fix the build', sessionId: 's-1'}))

    const mine = await runCast(['sessions', '--label', 'nope'], {env: h.env})
    expect(mine.code).toBe(0)
    expect(mine.stdout).toContain('"cast sessions --all" lists everything')

    const all = await runCast(['sessions', '--all', '--label', 'nope'], {env: h.env})
    expect(all.code).toBe(0)
    expect(all.stdout).not.toContain('cast sessions --all')
    expect(all.stdout).toContain('No session matches these filters. Drop --state, --label, --agent or --cwd')

    // The session itself is listed when the filter is dropped: the line told the truth.
    const every = await runCast(['sessions', '--all'], {env: h.env})
    expect(every.stdout).toContain('Fix the build')
  })
})
