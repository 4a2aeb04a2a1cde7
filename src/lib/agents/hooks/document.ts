/**
 * Pure merge / remove / inspect of cast's entries in an agent's parsed settings document: every
 * other key and every other hook is kept, in order. No I/O; the file handling is ./files.ts.
 */
import type {HookEventSpec, HookSpec} from '../../../core/ingest/hook-spec.js'
import {eventCommand, isCastCommand} from './command.js'

export type Json = Record<string, unknown>

/** A settings file cast will not touch (malformed, unreadable, an unexpected shape). */
export class HooksFileError extends Error {
  override name = 'HooksFileError'
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message)
  }
}

export function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Equal as JSON, whatever the order of object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical)
  if (isPlainObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k])]),
    )
  return v
}

/** cast's handlers in one item of `hooks.<event>` (a group or a handler). */
function castHandlersIn(spec: HookSpec, item: unknown): Json[] {
  if (!isPlainObject(item)) return []
  if (spec.layout === 'flat') return isCastCommand(item[spec.commandKey]) ? [item] : []
  const handlers = item['hooks']
  if (!Array.isArray(handlers)) return []
  return handlers.filter((h): h is Json => isPlainObject(h) && isCastCommand(h[spec.commandKey]))
}

/**
 * The list without cast's handlers. A group that held only cast's handlers goes; a group that
 * also holds the user's keeps them. Returns null when nothing was removed (the list is kept as is).
 */
function withoutCast(spec: HookSpec, list: readonly unknown[]): unknown[] | null {
  let removed = false
  const out: unknown[] = []
  for (const item of list) {
    const mine = castHandlersIn(spec, item)
    if (mine.length === 0) {
      out.push(item)
      continue
    }

    removed = true
    if (spec.layout === 'flat') continue
    const group = item as Json
    const rest = (group['hooks'] as unknown[]).filter((h) => !mine.includes(h as Json))
    if (rest.length > 0) out.push({...group, hooks: rest})
  }

  return removed ? out : null
}

function entryFor(spec: HookSpec, command: string, e: HookEventSpec): Json {
  const handler = spec.handler(command, e)
  if (spec.layout === 'flat') return handler
  return e.matcher === undefined ? {hooks: [handler]} : {matcher: e.matcher, hooks: [handler]}
}

/** Is cast's entry for this event in place exactly as cast would write it now? */
function upToDate(spec: HookSpec, list: readonly unknown[], command: string, e: HookEventSpec): boolean {
  const want = spec.handler(command, e)
  let found = 0
  let good = false
  for (const item of list) {
    const mine = castHandlersIn(spec, item)
    found += mine.length
    if (mine.length !== 1) continue
    const matcherOk = spec.layout === 'flat' || (item as Json)['matcher'] === e.matcher
    if (matcherOk && sameJson(mine[0], want)) good = true
  }

  return found === 1 && good
}

function hooksObject(doc: Json, file: string): Json | undefined {
  const hooks = doc['hooks']
  if (hooks === undefined) return undefined
  if (!isPlainObject(hooks)) throw new HooksFileError(`${file}: "hooks" is not an object; cast leaves the file alone.`, file)
  return hooks
}

/**
 * Take cast's handlers out of every list in `hooks` whose event `keep` does not name, deleting a
 * list left empty. Returns the events it took something out of (`hooks` is changed in place).
 */
function dropCastEntries(spec: HookSpec, hooks: Json, keep: ReadonlySet<string>): string[] {
  const dropped: string[] = []
  for (const [event, list] of Object.entries(hooks)) {
    if (keep.has(event) || !Array.isArray(list)) continue
    const rest = withoutCast(spec, list)
    if (rest === null) continue
    dropped.push(event)
    if (rest.length === 0) delete hooks[event]
    else hooks[event] = rest
  }

  return dropped
}

export interface MergeResult {
  readonly doc: Json
  readonly added: string[]
  readonly updated: string[]
  /** Events where cast had an entry it no longer installs (removed). */
  readonly dropped: string[]
  readonly changed: boolean
}

/** The document with cast's entries merged in: every other key and every other hook kept, in order. */
export function mergeHooks(spec: HookSpec, input: Readonly<Json>, base: string, file = spec.name, nudge = false): MergeResult {
  const doc: Json = {}
  let changed = false
  for (const [k, v] of Object.entries(spec.required ?? {})) {
    if (!(k in input)) {
      doc[k] = v
      changed = true
    }
  }

  Object.assign(doc, input)
  const hooks: Json = {...hooksObject(doc, file)}
  const added: string[] = []
  const updated: string[] = []
  for (const e of spec.events) {
    const current = hooks[e.event]
    if (current !== undefined && !Array.isArray(current)) {
      throw new HooksFileError(`${file}: "hooks.${e.event}" is not a list; cast leaves the file alone.`, file)
    }

    const list: readonly unknown[] = current ?? []
    const command = eventCommand(spec, base, e, nudge)
    if (upToDate(spec, list, command, e)) continue
    const rest = withoutCast(spec, list)
    if (rest === null) added.push(e.event)
    else updated.push(e.event)
    hooks[e.event] = [...(rest ?? list), entryFor(spec, command, e)]
  }

  // cast's entries under events it no longer installs (an older cast): take them out.
  const dropped = dropCastEntries(spec, hooks, new Set(spec.events.map((e) => e.event)))
  if (added.length + updated.length + dropped.length > 0) {
    doc['hooks'] = hooks
    changed = true
  }

  return {added, changed, doc, dropped, updated}
}

export interface RemoveResult {
  readonly doc: Json
  readonly removed: string[]
}

/** The document without cast's entries; everything else as it was. */
export function removeHooks(spec: HookSpec, input: Readonly<Json>, file = spec.name): RemoveResult {
  const hooks = hooksObject(input, file)
  if (hooks === undefined) return {doc: {...input}, removed: []}
  const next: Json = {...hooks}
  const removed = dropCastEntries(spec, next, new Set())
  if (removed.length === 0) return {doc: {...input}, removed}
  const doc: Json = {...input, hooks: next}
  if (Object.keys(next).length === 0) delete doc['hooks']
  return {doc, removed}
}

/** Nothing but the spec's required keys (with their required values) is left in the document. */
export function onlyRequired(spec: HookSpec, doc: Readonly<Json>): boolean {
  const required: Readonly<Json> = spec.required ?? {}
  return Object.keys(doc).every((k) => k in required && sameJson(doc[k], required[k]))
}

export interface Inspection {
  readonly installed: string[]
  readonly missing: string[]
  /** Events whose cast entry differs from what cast would write now (another path, another store). */
  readonly stale: string[]
  /** The distinct cast commands found. */
  readonly commands: string[]
}

export function inspectHooks(spec: HookSpec, doc: Readonly<Json>, base: string, nudge = false): Inspection {
  const raw = doc['hooks']
  const hooks: Json = isPlainObject(raw) ? raw : {}
  const installed: string[] = []
  const missing: string[] = []
  const stale: string[] = []
  const commands = new Set<string>()
  for (const e of spec.events) {
    const list = Array.isArray(hooks[e.event]) ? (hooks[e.event] as unknown[]) : []
    const mine = list.flatMap((item) => castHandlersIn(spec, item))
    for (const h of mine) commands.add(h[spec.commandKey] as string)
    if (mine.length === 0) {
      missing.push(e.event)
      continue
    }

    installed.push(e.event)
    if (!upToDate(spec, list, eventCommand(spec, base, e, nudge), e)) stale.push(e.event)
  }

  return {commands: [...commands], installed, missing, stale}
}
