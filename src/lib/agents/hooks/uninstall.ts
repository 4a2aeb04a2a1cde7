/** `cast hooks uninstall`: take exactly cast's entries out of an agent's settings (and a TOML `notify`, when the spec has one). */
import fs from 'node:fs'

import type {HookSpec, TomlProgramSpec} from '../../../core/ingest/hook-spec.js'
import type {Agent} from '../../../core/model/types.js'
import type {Env} from '../../home/env.js'
import {adapterEnvOf} from './command.js'
import {createdByCast, removeCreated} from './created.js'
import {onlyRequired, removeHooks} from './document.js'
import {readJsonFile, readText, replaceFile, serializeJson, type TextFile} from './files.js'
import type {TomlOutcome} from './install.js'

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

export interface UninstallOptions {
  readonly env: Env
  readonly now: number
  readonly dryRun?: boolean
}

export function uninstallHooks(spec: HookSpec, options: UninstallOptions): UninstallResult {
  const ctx = adapterEnvOf(options.env)
  const file = spec.settingsPath(ctx)
  const current = readJsonFile(file, spec.jsonc)
  const tomlFile = spec.toml?.path(ctx) ?? null
  const tomlText = spec.toml && tomlFile ? readText(tomlFile) : null
  const {doc, removed} = removeHooks(spec, current.doc, file)
  let backup: string | null = null
  let deleted = false
  if (removed.length > 0 && !options.dryRun) {
    if (createdByCast(options.env, current.real) && (onlyRequired(spec, doc) || isEmptyJson(doc))) {
      // cast created the file and nothing of the user's is in it: it goes, with cast's backups of it.
      removeCreated(options.env, current.real)
      deleted = true
    } else if (spec.hooksOnly && onlyRequired(spec, doc)) {
      // It held cast's entries and nothing else: no backup worth keeping.
      fs.rmSync(current.real, {force: true})
      deleted = true
    } else {
      backup = replaceFile(current, serializeJson(doc, current.text), options.now)
    }
  }

  const toml = spec.toml && tomlFile && tomlText !== null ? removeTomlProgram(spec.toml, tomlFile, tomlText, options) : null
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

/** Take cast's program out of the TOML file; the user's own stays. */
function removeTomlProgram(t: TomlProgramSpec, file: string, current: TextFile, options: UninstallOptions): TomlOutcome {
  const found = t.find(current.text)
  if (found === null) return {backup: null, file, key: t.key, result: 'absent', value: null}
  if (!found.cast) return {backup: null, file, key: t.key, result: 'taken', value: found.value}
  const next = t.remove(current.text)
  if (!options.dryRun && next.trim() === '' && createdByCast(options.env, current.real)) {
    removeCreated(options.env, current.real)
    return {backup: null, file, key: t.key, result: 'removed', value: found.value}
  }

  const backup = options.dryRun ? null : replaceFile(current, next, options.now)
  return {backup, file, key: t.key, result: 'removed', value: found.value}
}

/** Nothing but empty objects and arrays. */
function isEmptyJson(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(isEmptyJson)
  if (typeof v === 'object' && v !== null) return Object.values(v).every(isEmptyJson)
  return false
}
