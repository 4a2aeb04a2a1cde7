/** The kit's facts reader (src/adapters/kit/facts-reader.ts): how compose reads a stored contribution's typed facts back. */
import {describe, expect, it} from 'vitest'

import {factsReader} from '../../../src/adapters/kit/facts-reader.js'
import type {Contribution} from '../../../src/core/ingest/adapter.js'

type Facts = {readonly role: 'file'; readonly size: number} | {readonly role: 'hooks'; readonly at: number | null}

const reader = factsReader<Facts, 'role'>('role', {file: true, hooks: true})

/** As compose gets it: written, stored as JSON, read back. */
const stored = (c: Contribution): Contribution => JSON.parse(JSON.stringify(c)) as Contribution

describe('factsReader', () => {
  const file = stored({extra: {role: 'file', size: 3}, facts: {}, nativeId: 'a'})
  const hooks = stored({extra: {at: 5, role: 'hooks'}, facts: {}, nativeId: 'a'})

  it("reads back the adapter's own sources by their tag, each as the member the tag names", () => {
    expect(reader.all(file)).toEqual({role: 'file', size: 3})
    expect(reader.of(file, 'file')?.size).toBe(3)
    expect(reader.of(hooks, 'hooks')?.at).toBe(5)
  })

  it("is null for another of the adapter's sources, another source's extra (screen, scan), no extra, or no contribution", () => {
    expect(reader.of(file, 'hooks')).toBeNull()
    expect(reader.of(hooks, 'file')).toBeNull()
    expect(reader.all(stored({extra: {screen: {kind: 'busy', since: 1}}, facts: {}, nativeId: 'a'}))).toBeNull()
    expect(reader.all(stored({extra: {scan: 'at_rest'}, facts: {}, nativeId: 'a'}))).toBeNull()
    expect(reader.all(stored({extra: {role: 'registry'}, facts: {}, nativeId: 'a'}))).toBeNull()
    expect(reader.all(stored({facts: {}, nativeId: 'a'}))).toBeNull()
    expect(reader.all(JSON.parse('{"extra":null,"facts":{},"nativeId":"a"}') as Contribution)).toBeNull()
    expect(reader.all(null)).toBeNull()
    expect(reader.of(undefined, 'file')).toBeNull()
  })
})
