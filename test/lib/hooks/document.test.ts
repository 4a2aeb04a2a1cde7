/**
 * The pure merge / remove / inspect of cast's entries in a parsed settings document, as tables:
 * one grouped layout (Claude Code: matchers, groups of handlers) and one flat layout (Cursor:
 * handlers straight under the event, a required `version`).
 */
import {describe, expect, it} from 'vitest'

import {claudeCodeHookSpec as claude} from '../../../src/adapters/claude-code/hooks-spec.js'
import {cursorHookSpec as cursor} from '../../../src/adapters/cursor/hooks-spec.js'
import type {HookSpec} from '../../../src/core/ingest/hook-spec.js'
import {HooksFileError, inspectHooks, mergeHooks, onlyRequired, removeHooks, type Json} from '../../../src/lib/agents/hooks/document.js'

const CMD = '/opt/cast/bin/cast-hook x'
const OLD = '/old/checkout/bin/cast-hook x'
const events = (spec: HookSpec): string[] => spec.events.map((e) => e.event)
/** cast's entry for one event, as the spec writes it (grouped: in its own group, with the matcher). */
function entry(spec: HookSpec, event: string, command = CMD): Json {
  const e = spec.events.find((x) => x.event === event)!
  const handler = spec.handler(command, e)
  if (spec.layout === 'flat') return handler
  return e.matcher === undefined ? {hooks: [handler]} : {matcher: e.matcher, hooks: [handler]}
}

/** Every event with cast's entry, in the spec's order. */
const installed = (spec: HookSpec, command = CMD): Json => Object.fromEntries(events(spec).map((e) => [e, [entry(spec, e, command)]]))
const userGroup = {hooks: [{type: 'command', command: 'say hi'}]}
const userFlat = {command: 'afplay done.wav'}

describe('mergeHooks', () => {
  const cases: {
    name: string
    spec: HookSpec
    doc: Json
    want: Json
    added: string[]
    updated?: string[]
    dropped?: string[]
    changed?: boolean
  }[] = [
    {
      added: events(claude),
      doc: {},
      name: 'grouped, into an empty document',
      spec: claude,
      want: {hooks: installed(claude)},
    },
    {
      added: events(cursor),
      doc: {},
      name: 'flat, into an empty document: the required version first',
      spec: cursor,
      want: {version: 1, hooks: installed(cursor)},
    },
    {
      added: events(claude),
      doc: {model: 'opus', hooks: {Stop: [userGroup], Custom: [userGroup]}, theme: 'dark'},
      name: 'grouped, beside foreign hooks: theirs first and kept, every other key kept in order',
      spec: claude,
      updated: [],
      want: {
        model: 'opus',
        hooks: {Stop: [userGroup, entry(claude, 'Stop')], Custom: [userGroup], ...omit(installed(claude), 'Stop')},
        theme: 'dark',
      },
    },
    {
      added: events(cursor),
      doc: {version: 1, hooks: {stop: [userFlat]}},
      name: 'flat, beside foreign hooks',
      spec: cursor,
      want: {version: 1, hooks: {stop: [userFlat, entry(cursor, 'stop')], ...omit(installed(cursor), 'stop')}},
    },
    {
      added: [],
      changed: false,
      doc: {hooks: installed(claude)},
      name: 'grouped, re-install: nothing changes',
      spec: claude,
      want: {hooks: installed(claude)},
    },
    {
      added: [],
      changed: false,
      doc: {version: 1, hooks: installed(cursor)},
      name: 'flat, re-install: nothing changes',
      spec: cursor,
      want: {version: 1, hooks: installed(cursor)},
    },
    {
      added: [],
      doc: {hooks: installed(claude, OLD)},
      name: 'an install from another checkout is replaced, not doubled',
      spec: claude,
      updated: events(claude),
      want: {hooks: installed(claude)},
    },
    {
      added: [],
      doc: {
        hooks: {
          ...installed(claude),
          Stop: [
            {
              hooks: [
                {type: 'command', command: 'say hi'},
                {type: 'command', command: OLD},
              ],
            },
          ],
        },
      },
      name: 'cast pulled out of a group the user shares; the user handler stays there',
      spec: claude,
      updated: ['Stop'],
      want: {hooks: {...installed(claude), Stop: [userGroup, entry(claude, 'Stop')]}},
    },
    {
      added: [],
      doc: {
        hooks: {
          ...installed(claude),
          Retired: [{hooks: [{type: 'command', command: OLD}]}],
          Kept: [
            {
              hooks: [
                {type: 'command', command: OLD},
                {type: 'command', command: 'lint'},
              ],
            },
          ],
        },
      },
      dropped: ['Retired', 'Kept'],
      name: "cast's entries under events it no longer installs are taken out (the user's beside them stay)",
      spec: claude,
      want: {hooks: {...installed(claude), Kept: [{hooks: [{type: 'command', command: 'lint'}]}]}},
    },
  ]

  it.each(cases)('$name', ({spec, doc, want, added, updated = [], dropped = [], changed = true}) => {
    const before = JSON.stringify(doc)
    const r = mergeHooks(spec, doc, CMD)

    expect(r.doc).toEqual(want)
    // Key order is what the file will show: compare it too.
    expect(JSON.stringify(r.doc)).toBe(JSON.stringify(want))
    expect({added: r.added, changed: r.changed, dropped: r.dropped, updated: r.updated}).toEqual({added, changed, dropped, updated})
    expect(JSON.stringify(doc)).toBe(before)
    const again = mergeHooks(spec, r.doc, CMD)
    expect({added: again.added, changed: again.changed, dropped: again.dropped, updated: again.updated}).toEqual({
      added: [],
      changed: false,
      dropped: [],
      updated: [],
    })
    expect(JSON.stringify(again.doc)).toBe(JSON.stringify(r.doc))
  })

  it('the nudge: the nudge events run with CAST_NUDGE=1, the others plain; switching it off updates exactly those', () => {
    const on = mergeHooks(claude, {}, CMD, 'settings.json', true)
    const commands = Object.fromEntries(
      Object.entries(on.doc['hooks'] as Record<string, Json[]>).map(([e, [g]]) => [e, (g!['hooks'] as Json[])[0]!['command']]),
    )

    for (const e of events(claude)) expect(commands[e]).toBe(claude.nudgeEvents!.includes(e) ? `CAST_NUDGE=1 ${CMD}` : CMD)
    expect(mergeHooks(claude, on.doc, CMD, 'settings.json', false).updated).toEqual(
      events(claude).filter((e) => claude.nudgeEvents!.includes(e)),
    )
  })

  it.each([
    {doc: {hooks: []}, message: '"hooks" is not an object'},
    {doc: {hooks: 'x'}, message: '"hooks" is not an object'},
    {doc: {hooks: {Stop: {hooks: []}}}, message: '"hooks.Stop" is not a list'},
  ])('refuses $doc.hooks: $message', ({doc, message}) => {
    expect(() => mergeHooks(claude, doc, CMD, '/x/settings.json')).toThrow(HooksFileError)
    expect(() => mergeHooks(claude, doc, CMD, '/x/settings.json')).toThrow(`/x/settings.json: ${message}`)
  })
})

describe('removeHooks', () => {
  const cases: {name: string; spec: HookSpec; doc: Json; want: Json; removed: string[]}[] = [
    {doc: {hooks: installed(claude)}, name: 'grouped, only cast: the hooks key goes', removed: events(claude), spec: claude, want: {}},
    {
      doc: {version: 1, hooks: installed(cursor)},
      name: 'flat, only cast: the required key stays',
      removed: events(cursor),
      spec: cursor,
      want: {version: 1},
    },
    {
      doc: {
        model: 'opus',
        hooks: {Stop: [userGroup, entry(claude, 'Stop')], Custom: [userGroup], SessionEnd: [entry(claude, 'SessionEnd')]},
      },
      name: 'grouped, foreign entries left exactly as they were',
      removed: ['Stop', 'SessionEnd'],
      spec: claude,
      want: {model: 'opus', hooks: {Stop: [userGroup], Custom: [userGroup]}},
    },
    {
      doc: {
        hooks: {
          Stop: [
            {
              matcher: '*',
              hooks: [
                {type: 'command', command: 'lint'},
                {type: 'command', command: OLD},
              ],
            },
          ],
        },
      },
      name: 'grouped, a shared group keeps the user handler (and its matcher)',
      removed: ['Stop'],
      spec: claude,
      want: {hooks: {Stop: [{matcher: '*', hooks: [{type: 'command', command: 'lint'}]}]}},
    },
    {
      doc: {version: 1, hooks: {stop: [userFlat, {command: 'cast-hook cursor'}], sessionEnd: [{command: OLD}]}},
      name: 'flat, foreign entries left, any cast-hook path is cast',
      removed: ['stop', 'sessionEnd'],
      spec: cursor,
      want: {version: 1, hooks: {stop: [userFlat]}},
    },
    {doc: {model: 'opus'}, name: 'no hooks at all: nothing removed', removed: [], spec: claude, want: {model: 'opus'}},
    {
      doc: {hooks: {Stop: [userGroup, {hooks: [{type: 'command', command: '/bin/cast-hooked'}]}]}},
      name: 'a command that only looks like cast is not cast',
      removed: [],
      spec: claude,
      want: {hooks: {Stop: [userGroup, {hooks: [{type: 'command', command: '/bin/cast-hooked'}]}]}},
    },
  ]

  it.each(cases)('$name', ({spec, doc, want, removed}) => {
    const r = removeHooks(spec, doc)

    expect(r.removed).toEqual(removed)
    expect(JSON.stringify(r.doc)).toBe(JSON.stringify(want))
  })

  it.each([
    {doc: {model: 'opus', hooks: {Stop: [userGroup], Custom: [userGroup]}}, spec: claude},
    {doc: {version: 1, hooks: {stop: [userFlat]}}, spec: cursor},
  ])('install then uninstall gives back the document it started from ($spec.name)', ({spec, doc}) => {
    expect(JSON.stringify(removeHooks(spec, mergeHooks(spec, doc, CMD).doc).doc)).toBe(JSON.stringify(doc))
  })

  it('onlyRequired: true when nothing but the required keys (with their values) is left', () => {
    expect(onlyRequired(cursor, {version: 1})).toBe(true)
    expect(onlyRequired(cursor, {})).toBe(true)
    expect(onlyRequired(cursor, {version: 2})).toBe(false)
    expect(onlyRequired(cursor, {version: 1, other: true})).toBe(false)
    expect(onlyRequired(claude, {})).toBe(true)
    expect(onlyRequired(claude, {model: 'x'})).toBe(false)
  })
})

describe('inspectHooks', () => {
  const cases: {name: string; doc: Json; installed: string[]; missing: string[]; stale: string[]; commands: string[]}[] = [
    {commands: [], doc: {}, installed: [], missing: events(claude), name: 'nothing installed', stale: []},
    {
      commands: [],
      doc: {hooks: 'x'},
      installed: [],
      missing: events(claude),
      name: 'a malformed hooks key reads as nothing installed',
      stale: [],
    },
    {commands: [CMD], doc: {hooks: installed(claude)}, installed: events(claude), missing: [], name: 'installed, up to date', stale: []},
    {
      commands: [CMD],
      doc: {hooks: omit(installed(claude), 'Stop')},
      installed: events(claude).filter((e) => e !== 'Stop'),
      missing: ['Stop'],
      name: 'partly installed',
      stale: [],
    },
    {
      commands: [OLD],
      doc: {hooks: installed(claude, OLD)},
      installed: events(claude),
      missing: [],
      name: 'stale: another hook path',
      stale: events(claude),
    },
    {
      commands: [CMD],
      doc: {hooks: {...installed(claude), Stop: [entry(claude, 'Stop'), entry(claude, 'Stop')]}},
      installed: events(claude),
      missing: [],
      name: 'stale: cast twice under one event',
      stale: ['Stop'],
    },
    {
      commands: [CMD],
      doc: {hooks: {...installed(claude), PreToolUse: [{matcher: 'Bash', hooks: [claude.handler(CMD, {event: 'PreToolUse'})]}]}},
      installed: events(claude),
      missing: [],
      name: 'stale: another matcher',
      stale: ['PreToolUse'],
    },
    {
      commands: [CMD, OLD],
      doc: {hooks: {...installed(claude), Stop: [entry(claude, 'Stop', OLD)]}},
      installed: events(claude),
      missing: [],
      name: 'two different commands',
      stale: ['Stop'],
    },
  ]

  it.each(cases)('$name', ({doc, installed: inst, missing, stale, commands}) => {
    expect(inspectHooks(claude, doc, CMD)).toEqual({commands, installed: inst, missing, stale})
  })

  it('the nudge: entries with it read stale to a plain install and up to date to a nudged one', () => {
    const doc = mergeHooks(claude, {}, CMD, 'x', true).doc

    expect(inspectHooks(claude, doc, CMD, true).stale).toEqual([])
    expect(inspectHooks(claude, doc, CMD, false).stale).toEqual(events(claude).filter((e) => claude.nudgeEvents!.includes(e)))
  })
})

function omit(o: Json, key: string): Json {
  const {[key]: _, ...rest} = o
  return rest
}
