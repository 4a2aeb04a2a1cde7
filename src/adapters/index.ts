/**
 * Every adapter cast knows, in the order `cast doctor` lists them. Commands reach adapters only
 * through this registry and the ingest engine.
 */
import type {Adapter} from '../core/ingest/adapter.js'
import {claudeCode} from './claude-code/index.js'
import {codex} from './codex/index.js'
import {copilot} from './copilot/index.js'
import {cursor} from './cursor/index.js'
import {gemini} from './gemini/index.js'
import {opencode} from './opencode/index.js'
import {pi} from './pi/index.js'

export const ADAPTERS: readonly Adapter[] = [claudeCode, codex, opencode, pi, gemini, copilot, cursor]

export function adapterFor(agent: string): Adapter | undefined {
  return ADAPTERS.find((a) => a.agent === agent)
}
