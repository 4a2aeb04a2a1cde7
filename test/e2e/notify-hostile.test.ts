/**
 * Agent text that attacks the person reading it: a session title and an ask carrying OSC 52 (a
 * terminal would write it to the clipboard), a CSI clear-screen, a bidi override, a NUL and
 * `<a href>` markup. What cast notify prints, what cast daemon --notify logs, and what reaches a
 * real freedesktop notification server on a private D-Bus (one advertising body-markup, one not)
 * go through the one sanitizer (src/core/model/sanitize.ts); the notification is still delivered.
 */
import fs from 'node:fs'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {notificationText, oneLine} from '../../src/core/model/sanitize.js'
import {
  claudeLines,
  claudeTranscriptPath,
  killStarted,
  makeHome,
  runCast,
  startCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {type Bus, HAVE_BUS, startBus} from './fixtures/bus.js'

const OSC52 = '\u001B]52;c;cHduZWQ=\u0007'
const TITLE = `Fix ${OSC52}the build \u001B[2J now \u202Egnp.exe <a href="https://evil.example">click</a> & co\u0000 end`
const QUESTION = `Paste ${OSC52}the key <b>here</b>?\u0000`
/** No raw escape, bell, NUL, bidi override or other control but a newline. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/

describe('notificationText and oneLine', () => {
  it('drop or show every control, bidi override and NUL; escape markup only when asked', () => {
    expect(notificationText(TITLE)).toBe('Fix ]52;c;cHduZWQ=the build [2J now gnp.exe <a href="https://evil.example">click</a> & co end')
    expect(notificationText(TITLE, true)).toContain('&lt;a href="https://evil.example"&gt;click&lt;/a&gt; &amp; co')
    expect(notificationText('a\r\nb\tc\u0085d\uD800e')).toBe('a\nb cd\uFFFDe')
    expect(oneLine(TITLE)).not.toMatch(RAW)
    expect(oneLine(TITLE)).toContain('^[]52;c;cHduZWQ=^G')
  })
})

describe.skipIf(!HAVE_BUS)('hostile agent text in notifications', () => {
  let markupBus: Bus
  let plainBus: Bus
  let h: TempHome
  const CWD = '/src/app'
  const SID = 'eeeeeeee-2222-4222-8333-000000000066'
  const file = (): string => claudeTranscriptPath(h.home, CWD, SID)

  beforeAll(async () => {
    markupBus = await startBus(['body', 'body-markup'])
    plainBus = await startBus(['body'])
  }, 60_000)
  afterAll(() => {
    markupBus?.stop()
    plainBus?.stop()
  })
  beforeEach(() => {
    h = makeHome()
    markupBus.clear()
    plainBus.clear()
  })
  afterEach(() => {
    killStarted()
    h.cleanup()
  })

  const askNow = (): void => {
    fs.appendFileSync(
      file(),
      JSON.stringify({
        cwd: CWD,
        message: {
          content: [{id: 'toolu_h1', input: {questions: [{question: QUESTION}]}, name: 'AskUserQuestion', type: 'tool_use'}],
          id: 'msg_h1',
          model: 'claude-opus-4',
          role: 'assistant',
          type: 'message',
        },
        sessionId: SID,
        timestamp: new Date().toISOString(),
        type: 'assistant',
        uuid: 'ah1',
      }) + '\n',
    )
  }

  const prepared = async (bus: Bus): Promise<Record<string, string>> => {
    const env = {...h.env, DBUS_SESSION_BUS_ADDRESS: bus.address}
    writeFile(file(), claudeLines({at: new Date(Date.now() - 5000), cwd: CWD, prompt: TITLE, sessionId: SID, settled: false}))
    expect((await runCast(['sessions'], {env})).code).toBe(0)
    return env
  }

  it('cast notify: the printed line shows the controls, the desktop body escapes the markup, the NUL does not lose the page', async () => {
    const env = await prepared(markupBus)
    const n = startCast(['notify', '--backend', 'freedesktop'], env)
    await waitForWatcher(h.castHome)
    askNow()

    const [got] = await markupBus.waitNotes(1)
    const line = await n.nextLine()

    expect(got!.summary).toBe('Claude asked a question')
    expect(got!.body).not.toMatch(RAW)
    expect(got!.body).toContain('&lt;a href="https://evil.example"&gt;click&lt;/a&gt; &amp; co end')
    expect(got!.body).not.toContain('<a')
    expect(got!.body.split('\n')[1]).toBe('Paste ]52;c;cHduZWQ=the key &lt;b&gt;here&lt;/b&gt;?')
    expect(line).not.toMatch(RAW)
    expect(line).toContain('^[]52;c;cHduZWQ=^G')
    expect(line).toContain('<U+202E>')
    expect(line).toContain('[freedesktop]')
    expect(await n.stop()).toBe(0)
  })

  it('a server without body-markup gets the text as it is, controls dropped', async () => {
    const env = await prepared(plainBus)
    const n = startCast(['notify', '--backend', 'freedesktop', '--json'], env)
    await waitForWatcher(h.castHome)
    askNow()

    const [got] = await plainBus.waitNotes(1)

    expect(got!.body).not.toMatch(RAW)
    expect(got!.body).toContain('<a href="https://evil.example">click</a> & co end')
    expect(JSON.parse(await n.nextLine()).delivered).toEqual([{backend: 'freedesktop', error: null, ok: true}])
    expect(await n.stop()).toBe(0)
  })

  it('cast daemon --notify: the log line shows the controls', async () => {
    const env = await prepared(markupBus)
    const d = startCast(['daemon', '--notify'], env)
    let stderr = ''
    d.child.stderr!.on('data', (c) => (stderr += String(c)))
    await waitForWatcher(h.castHome)
    for (const end = Date.now() + 30_000; !stderr.includes('cast daemon: paging');) {
      if (Date.now() > end) throw new Error(`the daemon never started paging: ${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }

    askNow()
    await markupBus.waitNotes(1)
    for (const end = Date.now() + 20_000; !stderr.includes('notified:');) {
      if (Date.now() > end) throw new Error(`no notified line: ${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }

    expect(await d.stop()).toBe(0)
    expect(stderr).toContain('^[]52;c;cHduZWQ=^G')
    for (const l of stderr.split('\n')) expect(l).not.toMatch(RAW)
  })
})
