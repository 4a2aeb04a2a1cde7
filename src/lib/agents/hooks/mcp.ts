/**
 * `cast hooks install <agent> --mcp` and `uninstall`: the `cast mcp` server (src/lib/mcp/server.ts)
 * as one entry of the agent's own MCP configuration, added and taken out again, nothing else
 * touched. Which file that is comes from the agent's hook spec (`mcpConfigPath`,
 * src/adapters/<agent>/hooks-spec.ts); the entry is `{"type":"stdio","command","args","env"}`
 * under `mcpServers`. The file is backed up first and written atomically (./files.ts); a
 * malformed one is refused.
 */
import {fileURLToPath} from 'node:url'

import type {HookSpec} from '../../../core/ingest/hook-spec.js'
import {castHome, type Env} from '../../home/env.js'
import {adapterEnvOf} from './command.js'
import {HooksFileError, isPlainObject, type Json} from './document.js'
import {readJsonFile, replaceFile, serializeJson} from './files.js'

/** The entry's name in mcpServers. */
export const MCP_NAME = 'cast'

export interface McpOutcome {
  readonly file: string
  readonly name: string
  /** installed, updated, unchanged; removed, absent; taken: a "cast" entry that is not cast's own was left as it is. */
  readonly result: 'installed' | 'updated' | 'unchanged' | 'removed' | 'absent' | 'taken'
  readonly backup: string | null
  readonly entry: McpEntry | null
}

export interface McpEntry {
  type: 'stdio'
  command: string
  args: string[]
  env: Record<string, string>
}

/** The agents whose MCP configuration cast writes, and where. */
export function mcpConfigPath(spec: HookSpec, env: Env): string | null {
  return spec.mcpConfigPath ? spec.mcpConfigPath(adapterEnvOf(env)) : null
}

/** This installation's CLI (bin/run.js, four levels up from dist/lib/agents/hooks). */
export function castBinary(): string {
  return fileURLToPath(new URL('../../../../bin/run.js', import.meta.url))
}

/** The entry: this Node and this installation's CLI, CAST_HOME baked in when the user runs cast with a store of their own. */
export function mcpEntry(env: Env, binary = castBinary()): McpEntry {
  const custom = Boolean(env.CAST_HOME) || Boolean(env.XDG_DATA_HOME)
  return {args: [binary, 'mcp'], command: process.execPath, env: custom ? {CAST_HOME: castHome(env)} : {}, type: 'stdio'}
}

/** Is this entry one cast wrote (its last argument `mcp`, a cast CLI before it)? */
export function isCastEntry(e: unknown): boolean {
  if (!isPlainObject(e)) return false
  const args: unknown[] = Array.isArray(e.args) ? (e.args as unknown[]) : []
  const words = [e.command, ...args].filter((w): w is string => typeof w === 'string')
  return words.at(-1) === 'mcp' && words.slice(0, -1).some((w) => /(^|\/)(cast|run\.js)$/.test(w))
}

export function installMcp(spec: HookSpec, options: {env: Env; now: number; dryRun?: boolean}): McpOutcome {
  const file = mcpConfigPath(spec, options.env)
  if (file === null)
    throw new HooksFileError(
      `cast writes no MCP configuration for ${spec.label} yet; add "cast mcp" to its MCP servers by hand (docs/mcp.md).`,
      '',
    )
  const current = readJsonFile(file)
  const doc = current.doc as Record<string, Json>
  const servers = doc.mcpServers ?? {}
  if (!isPlainObject(servers)) throw new HooksFileError(`${file}: mcpServers is not an object. Nothing was changed.`, file)
  const entry = mcpEntry(options.env)
  const had = servers[MCP_NAME]
  if (had !== undefined && !isCastEntry(had)) return {backup: null, entry: null, file, name: MCP_NAME, result: 'taken'}
  if (had !== undefined && JSON.stringify(had) === JSON.stringify(entry))
    return {backup: null, entry, file, name: MCP_NAME, result: 'unchanged'}
  const next = {...doc, mcpServers: {...servers, [MCP_NAME]: entry as unknown as Json}}
  const backup = options.dryRun ? null : replaceFile(current, serializeJson(next, current.text), options.now)
  return {backup, entry, file, name: MCP_NAME, result: had === undefined ? 'installed' : 'updated'}
}

/** Take cast's entry out (only cast's: a foreign "cast" entry stays); absent when there is none. */
export function uninstallMcp(spec: HookSpec, options: {env: Env; now: number; dryRun?: boolean}): McpOutcome | null {
  const file = mcpConfigPath(spec, options.env)
  if (file === null) return null
  const current = readJsonFile(file)
  const doc = current.doc as Record<string, Json>
  const servers = doc.mcpServers
  const had = isPlainObject(servers) ? servers[MCP_NAME] : undefined
  if (had === undefined || !isPlainObject(servers)) return {backup: null, entry: null, file, name: MCP_NAME, result: 'absent'}
  if (!isCastEntry(had)) return {backup: null, entry: null, file, name: MCP_NAME, result: 'taken'}
  const rest = Object.fromEntries(Object.entries(servers).filter(([k]) => k !== MCP_NAME))
  const backup = options.dryRun ? null : replaceFile(current, serializeJson({...doc, mcpServers: rest}, current.text), options.now)
  return {backup, entry: had as unknown as McpEntry, file, name: MCP_NAME, result: 'removed'}
}
