/**
 * Hostile inputs to the tools test/mcp/mcp.test.ts does not cover (it covers declare_state and
 * send_to_session): ask_decision aimed at another session, 1 MB and control-byte questions,
 * options and reasoning; schedule with a 1 MB text, control bytes, an unknown id or no time;
 * unknown keys and tools on the reading tools. One clear MCP error each, and nothing written: no
 * card, no schedule.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type FakeProcess, makeProject, startFake} from '../fakes/agents.js'
import {json, makeHome, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {callDirect, callFromAgent, text, type ToolOutcome} from './helpers.js'

const A = '5e1f0000-0000-4000-8000-00000000e101'
const B = '5e1f0000-0000-4000-8000-00000000e102'
const MB = 1024 * 1024
const ESC = 'clear \u001b[2J\u001b]0;owned\u0007 screen'

/** One error result, one line of text that shows none of the hostile bytes, under 2,000 characters. */
function oneClearError(r: ToolOutcome): string {
  expect(r.result.isError).toBe(true)
  expect(r.result.content).toHaveLength(1)
  const t = text(r)
  // eslint-disable-next-line no-control-regex
  expect(t).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/)
  expect(t.length).toBeLessThan(2000)
  return t
}

describe('cast mcp refuses hostile inputs', () => {
  let h: TempHome
  let proj: string
  const fakes: FakeProcess[] = []

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
  })

  afterEach(async () => {
    for (const f of fakes.splice(0)) await f.stop()
    h.cleanup()
  })

  async function agent(sid: string, prompt: string): Promise<FakeProcess> {
    const fake = startFake({cwd: proj, env: {...h.env, FAKE_DELAY_MS: '100'}, prompt, sessionId: sid})
    fakes.push(fake)
    await fake.waitForOutput(new RegExp(`< Done: ${prompt}`))
    return fake
  }

  const idOf = async (sid: string) => json(await runCommand(['state', 'show', sid, '--json'], {env: h.env})).session as string
  const cards = async () => json(await runCommand(['decide', 'list', '--all', '--json'], {env: h.env}))
  const schedules = async () => json(await runCommand(['schedule', 'list', '--all', '--json'], {env: h.env}))

  it('ask_decision: another session, 1 MB texts, control bytes: one error each, no card', async () => {
    const a = await agent(A, 'Design the table')
    await agent(B, 'Other work')
    const bId = await idOf(B)
    const good = {options: ['Events :: one table', 'Split :: two tables'], question: 'Which schema?', reasoning: 'Events is simpler'}

    const results = await callFromAgent(h.dir, a, [
      {arguments: {...good, session: bId}, name: 'ask_decision'},
      {arguments: {...good, session_id: bId}, name: 'ask_decision'},
      {arguments: {...good, question: 'q'.repeat(MB)}, name: 'ask_decision'},
      {arguments: {...good, options: ['a'.repeat(MB), 'b']}, name: 'ask_decision'},
      {arguments: {...good, reasoning: 'r'.repeat(MB)}, name: 'ask_decision'},
      {arguments: {...good, question: ESC}, name: 'ask_decision'},
      {arguments: {...good, options: ['Ship \u202e now :: today', 'Wait :: a day']}, name: 'ask_decision'},
      {arguments: {...good, reasoning: `because\u0000${ESC}`}, name: 'ask_decision'},
      {arguments: {...good, options: [{effect: 'x', label: `A${ESC}`}, 'B :: y']}, name: 'ask_decision'},
      // The same call, well-formed: the one card written.
      {arguments: good, name: 'ask_decision'},
    ])

    const posted = results.pop()!
    expect(posted.result.isError).toBeFalsy()
    const lines = results.map(oneClearError)
    expect(lines[0]).toMatch(/Unrecognized key: "session"/)
    expect(lines[1]).toMatch(/Unrecognized key: "session_id"/)
    for (const l of lines.slice(2, 5)) expect(l).toMatch(/too big|at most|characters/i)
    for (const l of lines.slice(5)) expect(l).toMatch(/control character.*exit 2, USAGE/)
    expect((await cards()).cards.map((c: {id: string; question: string}) => [c.id, c.question])).toEqual([
      [(posted.result.structuredContent as {id: string}).id, 'Which schema?'],
    ])
  })

  it('schedule: 1 MB, control bytes, an unknown id, no time: one error each, nothing scheduled', async () => {
    await agent(A, 'Port the parser')
    const aId = await idOf(A)
    const at = new Date(Date.now() + 3_600_000).toISOString()

    const results = await callDirect(h.dir, h.env, [
      {arguments: {at, id: aId, text: 'y'.repeat(MB)}, name: 'schedule'},
      {arguments: {at, id: aId, text: `run ${ESC}\r`}, name: 'schedule'},
      {arguments: {at, id: 'zzzz-not-a-session', text: 'hello'}, name: 'schedule'},
      {arguments: {at: 'next tuesday-ish', id: aId, text: 'hello'}, name: 'schedule'},
      {arguments: {at, id: aId.slice(0, 6), text: 'hello'}, name: 'schedule'},
      {arguments: {at, id: aId, text: 'hello'}, name: 'schedule'},
    ])

    expect(results.pop()!.result.isError).toBeFalsy()
    const lines = results.map(oneClearError)
    expect(lines[0]).toMatch(/too big|at most|bytes/i)
    expect(lines[1]).toMatch(/control character.*exit 2, USAGE/)
    expect(lines[2]).toMatch(/exit 3, NOT_FOUND/)
    expect(lines[3]).toMatch(/not a time.*exit 2, USAGE/)
    expect(lines[4]).toMatch(/exit 3, NOT_FOUND/)
    expect((await schedules()).schedules.map((s: {message: string}) => s.message)).toEqual(['hello'])
  })

  it('unknown keys, wrong types and unknown tools on every other tool: one error each', async () => {
    const results = await callDirect(h.dir, h.env, [
      {arguments: {all: true}, name: 'list_sessions'},
      {arguments: {states: ['rm -rf']}, name: 'list_sessions'},
      {arguments: {id: 'x', with: 'files'}, name: 'session'},
      {arguments: {card: 'c', timeout: 10 ** 9}, name: 'wait_for_answer'},
      {arguments: {ids: [], timeout: 1, until: ['done']}, name: 'wait'},
      {arguments: {command: 'cast kill --all'}, name: 'run'},
      {arguments: {}, name: '../../declare_state'},
    ])

    const lines = results.map(oneClearError)
    expect(lines[0]).toMatch(/Unrecognized key: "all"/)
    expect(lines[5]).toMatch(/Tool run not found/)
    expect(lines[6]).toMatch(/not found/)
  })
})
