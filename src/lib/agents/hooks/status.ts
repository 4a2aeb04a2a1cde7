/** `cast hooks status`: what is installed where, and whether it is what an install would write now. */
import fs from 'node:fs'

import type {AdapterEnv} from '../../../core/ingest/adapter.js'
import type {HookSpec} from '../../../core/ingest/hook-spec.js'
import type {Agent} from '../../../core/model/types.js'
import type {Env} from '../../home/env.js'
import {
  adapterEnvOf,
  commandArgv,
  type HookCommand,
  hasNudge,
  hookCommandFor,
  NUDGE_WORD,
  parseCastCommand,
  shellCommand,
  shellWords,
} from './command.js'
import {type Inspection, inspectHooks} from './document.js'
import {executable, type JsonFile, readJsonFile, readText} from './files.js'

export type HookState = 'installed' | 'partial' | 'stale' | 'not_installed' | 'error'

export interface TomlStatus {
  readonly file: string
  readonly key: string
  readonly state: 'installed' | 'stale' | 'taken' | 'absent'
  readonly value: string | null
}

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
  readonly toml: TomlStatus | null
  /** The installed entries carry the nudge (CAST_NUDGE=1). */
  readonly nudge: boolean
  readonly notes: string[]
  readonly error: string | null
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
    return unreadable(spec, file, expected, (error as Error).message)
  }

  const nudge = inspectHooks(spec, current.doc, expected).commands.some((c) => hasNudge(c))
  const ins = inspectHooks(spec, current.doc, expected, nudge)
  const command = ins.commands.find((c) => !hasNudge(c)) ?? ins.commands[0] ?? null
  const parsed = command === null ? {binary: null, castHome: null} : parseCastCommand(command)
  const binaryExists = parsed.binary !== null && executable(parsed.binary)
  const notes = current.exists ? [...(spec.settingsNotes?.(current.doc) ?? [])] : []
  const distinct = new Set(
    ins.commands.map((c) =>
      shellWords(c)
        .filter((w) => w !== NUDGE_WORD)
        .join(' '),
    ),
  )
  if (distinct.size > 1)
    notes.push(`${distinct.size} different cast commands are installed; "cast hooks install ${spec.name}" makes them one.`)
  const toml = tomlStatus(spec, ctx, cmd, notes)
  // Keys in reading order, not alphabetical: this is what `--json` prints.
  return {
    agent: spec.agent,
    name: spec.name,
    label: spec.label,
    state: stateOf(ins),
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

function stateOf(ins: Inspection): HookState {
  if (ins.installed.length === 0) return 'not_installed'
  if (ins.missing.length > 0) return 'partial'
  if (ins.stale.length > 0) return 'stale'
  return 'installed'
}

/** The TOML side (a spec's `toml` program): whose program is set, and cast's up to date; its notes go into `notes`. */
function tomlStatus(spec: HookSpec, ctx: AdapterEnv, cmd: HookCommand, notes: string[]): TomlStatus | null {
  if (!spec.toml) return null
  const tfile = spec.toml.path(ctx)
  let text = ''
  try {
    text = readText(tfile).text
  } catch {
    text = ''
  }

  const found = spec.toml.find(text)
  const want = spec.toml.find(spec.toml.set('', commandArgv(cmd)))?.value ?? null
  notes.push(...(spec.toml.notes?.(text) ?? []))
  return {
    file: tfile,
    key: spec.toml.key,
    state: found === null ? 'absent' : !found.cast ? 'taken' : found.value === want ? 'installed' : 'stale',
    value: found?.value ?? null,
  }
}

/** The settings file cannot be read or parsed: say so, with every event missing. */
function unreadable(spec: HookSpec, file: string, expected: string, error: string): StatusResult {
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
    error,
  }
}
