/** `cast hooks install`: merge cast's entries into an agent's settings (and a TOML `notify`, when the spec has one). */
import type {HookSpec, TomlProgramSpec} from '../../../core/ingest/hook-spec.js'
import type {Agent} from '../../../core/model/types.js'
import type {Env} from '../../home/env.js'
import {adapterEnvOf, commandArgv, hookCommandFor, shellCommand} from './command.js'
import {mergeHooks} from './document.js'
import {missingDirs, noteCreated} from './created.js'
import {readJsonFile, readText, replaceFile, serializeJson, type TextFile} from './files.js'

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
  const dirs = current.exists ? [] : missingDirs(current.real)
  const backup = changed && !options.dryRun ? replaceFile(current, text, options.now) : null
  if (!current.exists && !options.dryRun) noteCreated(options.env, current.real, options.now, dirs)
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

/** Set cast's program in the TOML file, unless the user runs their own there. */
function setTomlProgram(
  t: TomlProgramSpec,
  file: string,
  current: TextFile,
  argv: readonly string[],
  options: InstallOptions,
): TomlOutcome {
  const found = t.find(current.text)
  if (found !== null && !found.cast) return {backup: null, file, key: t.key, result: 'taken', value: found.value}
  const next = t.set(current.text, argv)
  const now = t.find(next)?.value ?? null
  if (next === current.text) return {backup: null, file, key: t.key, result: 'unchanged', value: now}
  const dirs = current.exists ? [] : missingDirs(current.real)
  const backup = options.dryRun ? null : replaceFile(current, next, options.now)
  if (!current.exists && !options.dryRun) noteCreated(options.env, current.real, options.now, dirs)
  return {backup, file, key: t.key, result: found === null ? 'installed' : 'updated', value: now}
}
