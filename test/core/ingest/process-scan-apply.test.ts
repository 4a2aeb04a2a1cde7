/**
 * `applyScan` (src/core/ingest/process-scan.ts): the process scan's claim laid under the adapter's
 * facts. A process gone mid-turn is a crash; one gone after the files say its turn settled is not
 * (`opencode run` exits right after its answer, before the next scan re-stamps its claim as at rest).
 */
import {describe, expect, it} from 'vitest'

import type {CheckedContribution} from '../../../src/core/ingest/adapter.js'
import {applyScan} from '../../../src/core/ingest/process-scan.js'
import {EMPTY_FACTS} from '../../../src/core/model/types.js'

const claim = (extra?: Record<string, unknown>): CheckedContribution => ({
  facts: {},
  nativeId: 'ses_1',
  priority: 4,
  processAlive: false,
  processClaim: {heartbeatAt: null, pid: 4242, source: {kind: 'scan', ref: 'pid 4242 (opencode in /p)'}, startedAt: 1, status: null},
  ...(extra ? {extra} : {}),
})

describe('applyScan', () => {
  it('a process gone while the turn was still open reads as a crash', () => {
    const facts = applyScan({...EMPTY_FACTS, messages: 1, settled: false}, [claim()])
    expect(facts.process).toMatchObject({alive: false, exited: 'crash', pid: 4242})
  })

  it('a process gone after the turn settled is no crash, whether or not the claim was re-stamped at rest', () => {
    expect(applyScan({...EMPTY_FACTS, messages: 2, settled: true}, [claim()]).process).toBeNull()
    expect(applyScan({...EMPTY_FACTS, messages: 2, settled: true}, [claim({scan: 'at_rest'})]).process).toBeNull()
  })
})
