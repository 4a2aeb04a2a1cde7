/**
 * `cast hooks install|uninstall|status` (docs/contract.md §5): merge cast's hook entries into an agent
 * CLI's settings, take exactly those out again, and report what is installed where.
 *
 * What each agent wants (which file, which events, what one entry looks like) is pure data in
 * `src/adapters/<agent>/hooks-spec.ts`, typed by src/core/ingest/hook-spec.ts. Here, one job a
 * module: the command and its quoting (./command.ts), the pure merge/remove/inspect of a parsed
 * settings document (./document.ts), the file handling with backups and atomic writes
 * (./files.ts), the per-agent lookup (./specs.ts), and install / uninstall / status over them.
 */
export type {HookEventSpec, HookLayout, HookSpec, NoHooks, TomlProgramSpec} from '../../../core/ingest/hook-spec.js'
export * from './command.js'
export * from './document.js'
export * from './files.js'
export * from './install.js'
export * from './specs.js'
export * from './status.js'
export * from './uninstall.js'
export * from './mcp.js'
