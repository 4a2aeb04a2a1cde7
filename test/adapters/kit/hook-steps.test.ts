/** The shared hook-reducer steps (src/adapters/kit/hook-steps.ts), each on a small state. */
import {describe, expect, it} from 'vitest'

import {
  blockSources,
  closeAsks,
  closeAsksOf,
  closeQuestion,
  contributionOf,
  endSession,
  hardBlock,
  type HookBlock,
  type HookFacts,
  openApproval,
  openQuestion,
  settle,
  settledFact,
  startSession,
  startTurn,
  toolMoved,
} from '../../../src/adapters/kit/hook-steps.js'
import type {FactSource} from '../../../src/core/model/types.js'

const ask = (event: string, agent?: string): HookBlock =>
  agent === undefined ? {at: 1, event, text: event} : {agent, at: 1, event, text: event}

/** A state with every field the steps know, asks open (one the session's, one a subagent's). */
function full(): Record<string, unknown> & any {
  return {
    approval: ask('PermissionRequest'),
    askTool: 'AskUserQuestion',
    exitedAt: 5,
    promptAt: null,
    question: ask('PreToolUse', 'sub1'),
    sessionStartAt: null,
    settled: null,
    settledAt: null,
    settledEvent: null,
  }
}

describe('hook steps', () => {
  const cases: {name: string; step: (s: any) => void; want: Record<string, unknown>}[] = [
    {name: 'settle', step: (s) => settle(s, true, 9, 'Stop'), want: {settled: true, settledAt: 9, settledEvent: 'Stop'}},
    {name: 'closeAsks', step: (s) => closeAsks(s), want: {approval: null, askTool: null, question: null}},
    {name: 'closeQuestion', step: (s) => closeQuestion(s), want: {askTool: null, question: null}},
    {name: "closeAsksOf the session's own: a subagent's question stays", step: (s) => closeAsksOf(s, undefined), want: {approval: null}},
    {name: 'closeAsksOf a subagent: only its question', step: (s) => closeAsksOf(s, 'sub1'), want: {askTool: null, question: null}},
    {name: 'closeAsksOf another subagent: nothing', step: (s) => closeAsksOf(s, 'sub2'), want: {}},
    {
      name: 'openApproval',
      step: (s) => openApproval(s, 9, 'Notification', 'Bash'),
      want: {approval: {at: 9, event: 'Notification', text: 'Bash'}},
    },
    {
      name: "openApproval, a subagent's",
      step: (s) => openApproval(s, 9, 'PermissionRequest', 'Bash', 'sub2'),
      want: {approval: {agent: 'sub2', at: 9, event: 'PermissionRequest', text: 'Bash'}},
    },
    {
      name: 'openQuestion',
      step: (s) => openQuestion(s, 9, 'Notification', 'Which?'),
      want: {question: {at: 9, event: 'Notification', text: 'Which?'}},
    },
    {
      name: 'toolMoved: the approval was answered, the turn runs',
      step: (s) => toolMoved(s, 9, 'PostToolUse'),
      want: {approval: null, settled: false, settledAt: 9, settledEvent: 'PostToolUse'},
    },
    {
      name: 'startSession',
      step: (s) => startSession(s, 9, 'SessionStart'),
      want: {
        approval: null,
        askTool: null,
        exitedAt: null,
        question: null,
        sessionStartAt: 9,
        settled: true,
        settledAt: 9,
        settledEvent: 'SessionStart',
      },
    },
    {
      name: 'startTurn (asks are the reducer’s to close)',
      step: (s) => startTurn(s, 9, 'UserPromptSubmit'),
      want: {exitedAt: null, promptAt: 9, settled: false, settledAt: 9, settledEvent: 'UserPromptSubmit'},
    },
    {
      name: 'endSession',
      step: (s) => endSession(s, 9, 'SessionEnd'),
      want: {exitedAt: 9, settled: true, settledAt: 9, settledEvent: 'SessionEnd'},
    },
  ]

  it.each(cases)('$name changes exactly its fields', ({step, want}) => {
    const s = full()
    step(s)

    expect(s).toEqual({...full(), ...want})
  })

  it('a step writes no field the state does not have (the spool stores states as they are)', () => {
    const noTool = {approval: ask('a'), question: ask('q')}
    closeAsks(noTool)
    const noAsks = {exitedAt: null, promptAt: null, settled: null, settledAt: null, settledEvent: null}
    startTurn(noAsks, 3, 'beforeSubmitPrompt')
    endSession(noAsks, 4, 'sessionEnd')

    expect(Object.keys(noTool)).toEqual(['approval', 'question'])
    expect(Object.keys(noAsks).sort()).toEqual(['exitedAt', 'promptAt', 'settled', 'settledAt', 'settledEvent'])
  })
})

describe('hook facts', () => {
  it('hard blocks, their sources in the order asked, settled once a turn event said it', () => {
    const facts: HookFacts = {
      approval: hardBlock(ask('PermissionRequest')),
      error: hardBlock(ask('StopFailure')),
      question: hardBlock(null),
    }
    const sources: Record<string, FactSource> = {}
    blockSources(facts, sources, ['error', 'approval', 'question'])
    settledFact({settled: null, settledAt: null, settledEvent: null}, facts, sources)

    expect(facts.approval).toEqual({at: 1, source: {kind: 'hook', ref: 'PermissionRequest'}, text: 'PermissionRequest'})
    expect(Object.keys(sources)).toEqual(['error', 'approval'])
    expect('settled' in facts).toBe(false)
    settledFact({settled: false, settledAt: 2, settledEvent: 'PreToolUse'}, facts, sources)
    expect(facts.settled).toBe(false)
    expect(sources['settled']).toEqual({kind: 'hook', ref: 'PreToolUse'})
    expect(contributionOf('n1', facts, {role: 'hooks'})).toEqual({extra: {role: 'hooks'}, facts, nativeId: 'n1', priority: 20})
  })
})
