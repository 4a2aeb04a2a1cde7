/**
 * `cast hooks install|uninstall|status`: merge cast's hook entries into an agent CLI's settings,
 * take exactly those out again, and report what is installed where (DESIGN §5).
 *
 * What each agent wants (which file, which events, what one entry looks like) is pure data in
 * `src/adapters/<agent>/hooks-spec.ts`. This module holds the one generic merge/remove logic over
 * a parsed settings document, and the file handling around it: a malformed file is refused
 * untouched, a file about to change is backed up first (`<file>.cast-backup-<timestamp>`), and
 * every write is atomic (a temporary file in the same folder, then rename). A symlinked settings
 * file (dotfiles) is written through to its target.
 *
 * cast's entries are recognised by the hook command they run: a word whose basename is
 * `cast-hook` (so an install from another checkout or an older path is cast's too, and is
 * replaced rather than doubled).
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {claudeCodeHookSpec} from '../adapters/claude-code/hooks-spec.js'
import {codexHookSpec} from '../adapters/codex/hooks-spec.js'
import {copilotHookSpec} from '../adapters/copilot/hooks-spec.js'
import {cursorHookSpec} from '../adapters/cursor/hooks-spec.js'
import {geminiHookSpec} from '../adapters/gemini/hooks-spec.js'
import type {AdapterEnv} from '../core/ingest/adapter.js'
import type {Agent} from '../core/model/types.js'
import {castHome, type Env, homeDir} from './env.js'

// ---------------------------------------------------------------------------------------------
// The shape of a spec (implemented in src/adapters/<agent>/hooks-spec.ts)

/**
 * How a settings file lists hooks under `hooks.<event>`:
 * - `grouped`: `[{matcher?, hooks: [handler, …]}, …]` (Claude Code, Codex, Gemini CLI);
 * - `flat`: `[handler, …]` (Cursor, Copilot CLI).
 */
export type HookLayout = 'grouped' | 'flat'

export interface HookEventSpec {
  /** The key under `hooks` in the agent's file. */
  readonly event: string
  /** For the grouped layout: the group's matcher (omitted when undefined). */
  readonly matcher?: string
}

/** The command cast installs: the hook script, the agent id it spools under, the store it feeds. */
export interface HookCommand {
  /** Absolute path of `bin/cast-hook`. */
  readonly binary: string
  /** cast's agent id, the spool name (`claude_code`, `codex`, …). */
  readonly agent: Agent
  /** CAST_HOME baked into the command, or null to let the hook script find its default. */
  readonly castHome: string | null
}

/** A program cast sets in a TOML config (Codex's legacy `notify`), beside the JSON hooks. */
export interface TomlProgramSpec {
  /** The key, for messages (`notify`). */
  readonly key: string
  path(ctx: AdapterEnv): string
  /** Where the key is at the top level, and whether it is cast's. */
  find(text: string): {readonly value: string; readonly cast: boolean} | null
  /** The text with cast's program set (replacing cast's earlier one). Call only when find() is null or cast's. */
  set(text: string, argv: readonly string[]): string
  /** The text without cast's program (unchanged when it is not cast's). */
  remove(text: string): string
  /** Notes on the rest of the file worth telling the user (a feature switched off, …). */
  notes?(text: string): string[]
}

export interface HookSpec {
  readonly agent: Agent
  /** The name on the command line (`claude-code`). */
  readonly name: string
  /** Other names accepted on the command line. */
  readonly aliases: readonly string[]
  readonly label: string
  readonly layout: HookLayout
  /** The key of a handler that holds the shell command (`command`; Copilot: `bash`). */
  readonly commandKey: string
  readonly events: readonly HookEventSpec[]
  /** The JSON file cast merges its entries into. */
  settingsPath(ctx: AdapterEnv): string
  /** cast's handler for one event. */
  handler(command: string, event: HookEventSpec): Record<string, unknown>
  /** Top-level keys the file must have (`version: 1`), added when missing. */
  readonly required?: Readonly<Record<string, unknown>>
  /**
   * The file holds only hooks (a hooks.json, or cast's own file in a hooks folder): uninstall
   * deletes it when nothing but the required keys is left, rather than leave an empty shell.
   */
  readonly hooksOnly?: boolean
  /** The agent's settings file may hold comments (JSONC): say so when parsing fails. */
  readonly jsonc?: boolean
  /** What the user should know after an install (how the agent picks hooks up). */
  readonly notes: readonly string[]
  /** Notes on the parsed settings worth telling the user (hooks switched off, …). */
  settingsNotes?(doc: Readonly<Record<string, unknown>>): string[]
  /** Codex: the legacy `notify` program in config.toml. */
  readonly toml?: TomlProgramSpec
  /**
   * Events whose answer carries the nudge (docs/hooks.md): their command runs with CAST_NUDGE=1,
   * so bin/cast-hook answers Stop once per undeclared turn and adds cast's guidance (and a
   * presence notice) as context at SessionStart and UserPromptSubmit. Omitted: the agent's hook
   * protocol takes no answer cast can use.
   */
  readonly nudgeEvents?: readonly string[]
}

/** The environment word that turns the nudge on in bin/cast-hook. */
export const NUDGE_WORD = 'CAST_NUDGE=1'

/** The command cast installs for one event: the plain hook command, or with the nudge on. */
export function eventCommand(spec: HookSpec, command: string, e: HookEventSpec, nudge: boolean): string {
  return nudge && spec.nudgeEvents?.includes(e.event) ? `${NUDGE_WORD} ${command}` : command
}

/** Does an installed command run with the nudge on? */
export function hasNudge(command: unknown): boolean {
  return typeof command === 'string' && shellWords(command).includes(NUDGE_WORD)
}

/** Every agent whose hooks cast can install, in the order `status` lists them. */
export const HOOK_SPECS: readonly HookSpec[] = [claudeCodeHookSpec, codexHookSpec, geminiHookSpec, cursorHookSpec, copilotHookSpec]

/** Agents cast reads without shell hooks, and why (for a clear refusal). */
export const NO_HOOKS: Readonly<Record<string, string>> = {
  opencode: 'OpenCode has no shell hooks (plugins and its HTTP server only); cast reads its files and, when reachable, its server.',
  pi: 'pi has no shell hooks (its extension API only); cast reads its session files.',
}

export function hookSpecFor(name: string): HookSpec | undefined {
  const n = name.trim().toLowerCase()
  return HOOK_SPECS.find((s) => s.name === n || s.agent === n || s.aliases.includes(n))
}

// ---------------------------------------------------------------------------------------------
// The command

/** `bin/cast-hook` of this installation (two levels up from dist/lib or src/lib). */
export function hookBinary(): string {
  return fileURLToPath(new URL('../../bin/cast-hook', import.meta.url))
}

export function adapterEnvOf(env: Env): AdapterEnv {
  return {env, home: homeDir(env)}
}

/**
 * The command for one agent. CAST_HOME is baked in when the user runs cast with a store other
 * than the hook script's default (CAST_HOME or XDG_DATA_HOME set), so hooks land in that store
 * even when the agent runs with another environment.
 */
export function hookCommandFor(agent: Agent, env: Env, binary = hookBinary()): HookCommand {
  const custom = Boolean(env.CAST_HOME) || Boolean(env.XDG_DATA_HOME)
  return {agent, binary, castHome: custom ? castHome(env) : null}
}

const SHELL_SAFE = /^[\w@%+=:,./-]+$/

export function shellQuote(s: string): string {
  return SHELL_SAFE.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`
}

/** `CAST_HOME='/x' /abs/bin/cast-hook claude_code` — for settings that run a shell command. */
export function shellCommand(c: HookCommand): string {
  const run = `${shellQuote(c.binary)} ${c.agent}`
  return c.castHome === null ? run : `CAST_HOME='${c.castHome.replaceAll("'", "'\\''")}' ${run}`
}

/** The same as an argv (for settings that take a program and its arguments, like Codex's notify). */
export function commandArgv(c: HookCommand): string[] {
  return c.castHome === null ? [c.binary, c.agent] : ['/usr/bin/env', `CAST_HOME=${c.castHome}`, c.binary, c.agent]
}

/** Does this command run cast's hook script? (A word whose basename is `cast-hook`.) */
export function isCastCommand(command: unknown): command is string {
  return typeof command === 'string' && /(?:^|[\s/'"=])cast-hook['"]?(?:\s|$)/.test(command)
}

/** The words of a shell command, honouring single and double quotes (enough for cast's own commands). */
export function shellWords(command: string): string[] {
  const words: string[] = []
  let cur = ''
  let inWord = false
  let quote: '"' | "'" | null = null
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!
    if (quote === "'") {
      if (ch === "'") quote = null
      else cur += ch
    } else if (quote === '"') {
      if (ch === '"') quote = null
      else if (ch === '\\' && i + 1 < command.length && '"\\$`'.includes(command[i + 1]!)) cur += command[++i]
      else cur += ch
    } else if (ch === "'" || ch === '"') {
      quote = ch
      inWord = true
    } else if (ch === '\\' && i + 1 < command.length) {
      cur += command[++i]
      inWord = true
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur)
      cur = ''
      inWord = false
    } else {
      cur += ch
      inWord = true
    }
  }

  if (inWord) words.push(cur)
  return words
}

/** What an installed cast command points at: the hook script and the CAST_HOME it feeds. */
export function parseCastCommand(command: string): {binary: string | null; castHome: string | null} {
  const words = shellWords(command)
  let home: string | null = null
  let binary: string | null = null
  for (const w of words) {
    const m = /^CAST_HOME=(.*)$/s.exec(w)
    if (m) home = m[1]!
    else if (path.basename(w) === 'cast-hook') {
      binary = w
      break
    }
  }

  return {binary, castHome: home}
}

// ---------------------------------------------------------------------------------------------
// Pure merge / remove / inspect over a parsed settings document

type Json = Record<string, unknown>

export class HooksFileError extends Error {
  override name = 'HooksFileError'
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message)
  }
}

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
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

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical)
  if (isPlainObject(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]))
  return v
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
  const before = hooksObject(doc, file)
  const hooks: Json = {...before}
  const added: string[] = []
  const updated: string[] = []
  const dropped: string[] = []
  const ours = new Set(spec.events.map((e) => e.event))
  for (const e of spec.events) {
    const current = hooks[e.event]
    if (current !== undefined && !Array.isArray(current)) {
      throw new HooksFileError(`${file}: "hooks.${e.event}" is not a list; cast leaves the file alone.`, file)
    }

    const list = current ?? []
    const command = eventCommand(spec, base, e, nudge)
    if (upToDate(spec, list, command, e)) continue
    const rest = withoutCast(spec, list)
    if (rest === null) added.push(e.event)
    else updated.push(e.event)
    hooks[e.event] = [...(rest ?? list), entryFor(spec, command, e)]
  }

  // cast's entries under events it no longer installs (an older cast): take them out.
  for (const [event, list] of Object.entries(hooks)) {
    if (ours.has(event) || !Array.isArray(list)) continue
    const rest = withoutCast(spec, list)
    if (rest === null) continue
    dropped.push(event)
    if (rest.length === 0) delete hooks[event]
    else hooks[event] = rest
  }

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
  const hooks = hooksObject(input as Json, file)
  if (hooks === undefined) return {doc: {...input}, removed: []}
  const next: Json = {...hooks}
  const removed: string[] = []
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue
    const rest = withoutCast(spec, list)
    if (rest === null) continue
    removed.push(event)
    if (rest.length === 0) delete next[event]
    else next[event] = rest
  }

  if (removed.length === 0) return {doc: {...input}, removed}
  const doc: Json = {...input, hooks: next}
  if (Object.keys(next).length === 0) delete doc['hooks']
  return {doc, removed}
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

// ---------------------------------------------------------------------------------------------
// Files

interface JsonFile {
  /** The path written (a symlink's target). */
  readonly real: string
  readonly exists: boolean
  readonly text: string
  readonly doc: Json
}

function realTarget(file: string): string {
  try {
    return fs.realpathSync(file)
  } catch {
    return file
  }
}

export function readJsonFile(file: string, jsonc = false): JsonFile {
  const real = realTarget(file)
  let text: string
  try {
    text = fs.readFileSync(real, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return {doc: {}, exists: false, real, text: ''}
    throw new HooksFileError(`Cannot read ${file}: ${(error as Error).message}`, file)
  }

  if (text.trim() === '') return {doc: {}, exists: true, real, text}
  let doc: unknown
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (error) {
    const hint = jsonc ? '; comments are not supported by cast\'s installer: add the entries by hand (see --dry-run)' : ''
    throw new HooksFileError(`${file} is not valid JSON (${jsonErrorWhere(text, (error as Error).message)})${hint}. Nothing was changed.`, file)
  }

  if (!isPlainObject(doc)) throw new HooksFileError(`${file} does not hold a JSON object. Nothing was changed.`, file)
  return {doc, exists: true, real, text}
}

/** JSON.parse's message with the line and column of its byte position, when it gives one. */
function jsonErrorWhere(text: string, message: string): string {
  const m = /at position (\d+)/.exec(message)
  if (!m || /line \d+/.test(message)) return message
  const before = text.slice(0, Number(m[1]))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return `${message.replace(/ in JSON at position \d+.*$/, '')} at line ${line}, column ${column}`
}

/** The indentation the file uses (two spaces when it has none). */
function indentOf(text: string): string | number {
  const m = /^([ \t]+)["}\]]/m.exec(text)
  return m ? m[1]! : 2
}

export function serializeJson(doc: unknown, original = ''): string {
  const eol = original === '' || original.endsWith('\n') ? '\n' : ''
  const out = JSON.stringify(doc, null, indentOf(original)) + eol
  return original.includes('\r\n') ? out.replaceAll('\n', '\r\n') : out
}

function stamp(now: number): string {
  return new Date(now).toISOString().replaceAll(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

/** Copy the file beside itself as `<file>.cast-backup-<UTC timestamp>` (never over another backup). */
export function backupFile(file: string, now: number): string {
  const base = `${file}.cast-backup-${stamp(now)}`
  for (let i = 0; ; i++) {
    const target = i === 0 ? base : `${base}-${i}`
    try {
      fs.copyFileSync(file, target, fs.constants.COPYFILE_EXCL)
      // The backup keeps the original's mode (a private settings file stays private).
      fs.chmodSync(target, fs.statSync(file).mode & 0o777)
      return target
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}

/** Write through a temporary file in the same folder and rename it over the target. */
export function writeAtomic(file: string, text: string): void {
  const dir = path.dirname(file)
  // Folders cast creates are private; a settings file keeps its mode, and a new one is 0600.
  fs.mkdirSync(dir, {mode: 0o700, recursive: true})
  let mode = 0o600
  try {
    mode = fs.statSync(file).mode & 0o777
  } catch {
    // a new file
  }

  const tmp = path.join(dir, `.${path.basename(file)}.cast-tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`)
  const fd = fs.openSync(tmp, 'wx', mode)
  try {
    fs.writeSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }

  try {
    fs.chmodSync(tmp, mode)
    fs.renameSync(tmp, file)
  } catch (error) {
    fs.rmSync(tmp, {force: true})
    throw error
  }
}

// ---------------------------------------------------------------------------------------------
// install / uninstall / status

export interface TomlOutcome {
  readonly file: string
  readonly key: string
  /** installed: cast's program set now; unchanged: it already was; taken: the user has their own; removed; absent. */
  readonly result: 'installed' | 'updated' | 'unchanged' | 'taken' | 'removed' | 'absent'
  readonly backup: string | null
  readonly value: string | null
}

export interface InstallResult {
  readonly agent: Agent
  readonly name: string
  readonly label: string
  readonly file: string
  readonly created: boolean
  readonly changed: boolean
  readonly dry_run: boolean
  readonly added: string[]
  readonly updated: string[]
  readonly dropped: string[]
  readonly events: string[]
  readonly command: string
  readonly backup: string | null
  readonly toml: TomlOutcome | null
  readonly notes: string[]
  /** The Stop nudge and the SessionStart guidance are installed (off with --no-nudge, or when the agent takes no answer). */
  readonly nudge: boolean
  /** With --dry-run: the file as cast would write it. */
  readonly preview?: string
}

export interface InstallOptions {
  readonly env: Env
  readonly now: number
  readonly dryRun?: boolean
  readonly binary?: string
  /** Install the nudge where the agent supports it (default true). */
  readonly nudge?: boolean
}

export function installHooks(spec: HookSpec, options: InstallOptions): InstallResult {
  const ctx = adapterEnvOf(options.env)
  const file = spec.settingsPath(ctx)
  const cmd = hookCommandFor(spec.agent, options.env, options.binary)
  const command = shellCommand(cmd)
  const current = readJsonFile(file, spec.jsonc)
  // Refuse a malformed TOML side before touching anything.
  const tomlFile = spec.toml?.path(ctx) ?? null
  const tomlText = spec.toml && tomlFile ? readText(tomlFile) : null
  const nudge = options.nudge !== false && (spec.nudgeEvents?.length ?? 0) > 0
  const merged = mergeHooks(spec, current.doc, command, file, nudge)
  const changed = merged.changed || !current.exists
  const text = serializeJson(merged.doc, current.text)
  let backup: string | null = null
  if (changed && !options.dryRun) {
    if (current.exists && current.text !== '') backup = backupFile(current.real, options.now)
    writeAtomic(current.real, text)
  }

  const notes = [...spec.notes, ...(spec.settingsNotes?.(merged.doc) ?? [])]
  let toml: TomlOutcome | null = null
  if (spec.toml && tomlFile && tomlText !== null) {
    toml = setTomlProgram(spec.toml, tomlFile, tomlText, commandArgv(cmd), options)
    notes.push(...(spec.toml.notes?.(tomlText.text) ?? []))
  }

  return {
    added: merged.added,
    agent: spec.agent,
    backup,
    changed: changed || toml?.result === 'installed' || toml?.result === 'updated',
    command,
    created: !current.exists,
    dropped: merged.dropped,
    dry_run: options.dryRun === true,
    events: spec.events.map((e) => e.event),
    file,
    label: spec.label,
    name: spec.name,
    notes,
    nudge,
    ...(options.dryRun ? {preview: text} : {}),
    toml,
    updated: merged.updated,
  }
}

function readText(file: string): {real: string; exists: boolean; text: string} {
  const real = realTarget(file)
  try {
    return {exists: true, real, text: fs.readFileSync(real, 'utf8')}
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {exists: false, real, text: ''}
    throw new HooksFileError(`Cannot read ${file}: ${(error as Error).message}`, file)
  }
}

function setTomlProgram(
  t: TomlProgramSpec,
  file: string,
  current: {real: string; exists: boolean; text: string},
  argv: readonly string[],
  options: InstallOptions,
): TomlOutcome {
  const found = t.find(current.text)
  if (found !== null && !found.cast) return {backup: null, file, key: t.key, result: 'taken', value: found.value}
  const next = t.set(current.text, argv)
  const now = t.find(next)?.value ?? null
  if (next === current.text) return {backup: null, file, key: t.key, result: 'unchanged', value: now}
  let backup: string | null = null
  if (!options.dryRun) {
    if (current.exists && current.text !== '') backup = backupFile(current.real, options.now)
    writeAtomic(current.real, next)
  }

  return {backup, file, key: t.key, result: found === null ? 'installed' : 'updated', value: now}
}

export interface UninstallResult {
  readonly agent: Agent
  readonly name: string
  readonly label: string
  readonly file: string
  readonly changed: boolean
  readonly dry_run: boolean
  readonly removed: string[]
  readonly backup: string | null
  /** The file held cast's entries and nothing else: deleted. */
  readonly deleted: boolean
  readonly toml: TomlOutcome | null
}

export function uninstallHooks(spec: HookSpec, options: {env: Env; now: number; dryRun?: boolean}): UninstallResult {
  const ctx = adapterEnvOf(options.env)
  const file = spec.settingsPath(ctx)
  const current = readJsonFile(file, spec.jsonc)
  const tomlFile = spec.toml?.path(ctx) ?? null
  const tomlText = spec.toml && tomlFile ? readText(tomlFile) : null
  const {doc, removed} = removeHooks(spec, current.doc, file)
  let backup: string | null = null
  let deleted = false
  if (removed.length > 0 && !options.dryRun) {
    const required: Readonly<Json> = spec.required ?? {}
    const onlyRequired = Object.keys(doc).every((k) => k in required && sameJson(doc[k], required[k]))
    if (spec.hooksOnly && onlyRequired) {
      // It held cast's entries and nothing else: no backup worth keeping.
      fs.rmSync(current.real, {force: true})
      deleted = true
    } else {
      backup = backupFile(current.real, options.now)
      writeAtomic(current.real, serializeJson(doc, current.text))
    }
  }

  let toml: TomlOutcome | null = null
  if (spec.toml && tomlFile && tomlText !== null) {
    const found = spec.toml.find(tomlText.text)
    if (found === null) toml = {backup: null, file: tomlFile, key: spec.toml.key, result: 'absent', value: null}
    else if (!found.cast) toml = {backup: null, file: tomlFile, key: spec.toml.key, result: 'taken', value: found.value}
    else {
      let tb: string | null = null
      if (!options.dryRun) {
        tb = backupFile(tomlText.real, options.now)
        writeAtomic(tomlText.real, spec.toml.remove(tomlText.text))
      }

      toml = {backup: tb, file: tomlFile, key: spec.toml.key, result: 'removed', value: found.value}
    }
  }

  return {
    agent: spec.agent,
    backup,
    changed: removed.length > 0 || toml?.result === 'removed',
    deleted,
    dry_run: options.dryRun === true,
    file,
    label: spec.label,
    name: spec.name,
    removed,
    toml,
  }
}

export type HookState = 'installed' | 'partial' | 'stale' | 'not_installed' | 'error'

export interface StatusResult {
  readonly agent: Agent
  readonly name: string
  readonly label: string
  readonly file: string
  readonly file_exists: boolean
  readonly state: HookState
  readonly events_installed: string[]
  readonly events_missing: string[]
  readonly events_stale: string[]
  /** The cast command found in the file (the first, if several differ), else null. */
  readonly command: string | null
  /** What `cast hooks install` would write now. */
  readonly expected_command: string
  readonly binary: string | null
  readonly binary_exists: boolean
  /** Where the installed command spools (its baked CAST_HOME), null for the hook script's default. */
  readonly cast_home: string | null
  readonly toml: {readonly file: string; readonly key: string; readonly state: 'installed' | 'stale' | 'taken' | 'absent'; readonly value: string | null} | null
  /** The installed entries carry the nudge (CAST_NUDGE=1). */
  readonly nudge: boolean
  readonly notes: string[]
  readonly error: string | null
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

export function hooksStatus(spec: HookSpec, options: {env: Env; binary?: string}): StatusResult {
  const ctx = adapterEnvOf(options.env)
  const file = spec.settingsPath(ctx)
  const cmd = hookCommandFor(spec.agent, options.env, options.binary)
  const expected = shellCommand(cmd)
  let current: JsonFile
  try {
    current = readJsonFile(file, spec.jsonc)
  } catch (error) {
    return {
      agent: spec.agent,
      name: spec.name,
      label: spec.label,
      state: 'error',
      file,
      file_exists: fs.existsSync(file),
      events_installed: [],
      events_missing: spec.events.map((e) => e.event),
      events_stale: [],
      command: null,
      expected_command: expected,
      binary: null,
      binary_exists: false,
      cast_home: null,
      toml: null,
      nudge: false,
      notes: [],
      error: (error as Error).message,
    }
  }

  const nudge = inspectHooks(spec, current.doc, expected).commands.some((c) => hasNudge(c))
  const ins = inspectHooks(spec, current.doc, expected, nudge)
  const command = ins.commands.find((c) => !hasNudge(c)) ?? ins.commands[0] ?? null
  const parsed = command === null ? {binary: null, castHome: null} : parseCastCommand(command)
  const binaryExists = parsed.binary !== null && executable(parsed.binary)
  let toml: StatusResult['toml'] = null
  const notes = current.exists ? [...(spec.settingsNotes?.(current.doc) ?? [])] : []
  const distinct = new Set(ins.commands.map((c) => shellWords(c).filter((w) => w !== NUDGE_WORD).join(' ')))
  if (distinct.size > 1) notes.push(`${distinct.size} different cast commands are installed; "cast hooks install ${spec.name}" makes them one.`)
  if (spec.toml) {
    const tfile = spec.toml.path(ctx)
    let text = ''
    try {
      text = readText(tfile).text
    } catch {
      text = ''
    }

    const found = spec.toml.find(text)
    const want = spec.toml.find(spec.toml.set('', commandArgv(cmd)))?.value ?? null
    toml = {
      file: tfile,
      key: spec.toml.key,
      state: found === null ? 'absent' : !found.cast ? 'taken' : found.value === want ? 'installed' : 'stale',
      value: found?.value ?? null,
    }
    notes.push(...(spec.toml.notes?.(text) ?? []))
  }

  let state: HookState
  if (ins.installed.length === 0) state = 'not_installed'
  else if (ins.missing.length > 0) state = 'partial'
  else if (ins.stale.length > 0) state = 'stale'
  else state = 'installed'
  // Keys in reading order, not alphabetical: this is what `--json` prints.
  return {
    agent: spec.agent,
    name: spec.name,
    label: spec.label,
    state,
    file,
    file_exists: current.exists,
    events_installed: ins.installed,
    events_missing: ins.missing,
    events_stale: ins.stale,
    command,
    expected_command: expected,
    binary: parsed.binary,
    binary_exists: binaryExists,
    cast_home: parsed.castHome,
    toml,
    nudge,
    notes,
    error: null,
  }
}

// ---------------------------------------------------------------------------------------------
// For the commands

/** The spec for a name on the command line, or why there is none (a usage error). */
export function lookupHookSpec(name: string): {spec: HookSpec} | {message: string; suggestions: string[]} {
  const spec = hookSpecFor(name)
  if (spec) return {spec}
  const n = name.trim().toLowerCase()
  const names = HOOK_SPECS.map((s) => s.name).join(', ')
  if (n in NO_HOOKS) return {message: NO_HOOKS[n]!, suggestions: [`Agents with hooks: ${names}.`]}
  return {message: `Unknown agent "${name}". Agents with hooks: ${names}.`, suggestions: ['cast hooks status   lists them with what is installed.']}
}

/** `/home/me/.claude/settings.json` → `~/.claude/settings.json` (for human output only). */
export function tildePath(p: string, env: Env): string {
  const home = homeDir(env)
  return home && (p === home || p.startsWith(home + path.sep)) ? '~' + p.slice(home.length) : p
}
