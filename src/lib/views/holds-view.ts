/**
 * What a session holds, as `cast sessions --json` (`usage`, `changed_files`), `cast sessions
 * --columns` and `cast explain` (the "holds" section) show it. The figures come from the model
 * (src/core/model/holds.ts) over the tree the store summed (src/core/store/holds.ts).
 */
import {formatAge} from '../../core/model/age.js'
import {holdsOf, type Phase, phaseOf, type TreeHolds, usageTotal} from '../../core/model/holds.js'
import type {SessionHolds, TokenUsage, WorkState} from '../../core/model/types.js'
import type {SessionRow} from '../../core/store/sessions.js'
import {oneLine} from '../../core/model/sanitize.js'

export interface UsageJson {
  input: number
  output: number
  cache_read: number
  cache_write: number
  total: number
}

export function usageJson(u: TokenUsage | null): UsageJson | null {
  return u === null ? null : {cache_read: u.cacheRead, cache_write: u.cacheWrite, input: u.input, output: u.output, total: usageTotal(u)}
}

/** The row's tree, or its own holds as a tree of one (a teammate's row carries no tree). */
export function treeOf(row: Pick<SessionRow, 'tree'> & {readonly facts: Pick<SessionRow['facts'], 'holds'>}): TreeHolds {
  if (row.tree !== undefined) return row.tree
  const h = holdsOf(row.facts)
  return {
    changed: h?.changed ?? [],
    changedMore: h?.changedMore ?? 0,
    models: h?.models ?? [],
    partial: h?.partial ?? false,
    sessions: 1,
    unknownUsage: h?.unknownUsage ?? 0,
    usage: h?.usage ?? null,
    withoutUsage: h?.usage ? 0 : 1,
  }
}

/** Distinct changed paths over the tree. */
export const changedCount = (t: TreeHolds): number => t.changed.length + t.changedMore

/** The columns `cast sessions --columns` takes, in the order they print. */
export const COLUMNS = ['phase', 'tokens', 'files', 'tools', 'background', 'models', 'subagents'] as const
export type Column = (typeof COLUMNS)[number]

/** 1234 -> 1.2k, 1234567 -> 1.2M. */
export function compact(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)}k`
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`
  return `${(n / 1e9).toFixed(1)}G`
}

export function phaseOfRow(row: SessionRow): Phase {
  return phaseOf(row.facts, row.state, holdsOf(row.facts))
}

function tokensText(t: TreeHolds): string {
  if (t.usage === null) return 'tokens unknown'
  const u = t.usage
  const unknown = t.unknownUsage > 0 ? ` (+${t.unknownUsage} unknown)` : ''
  return `tokens ${compact(usageTotal(u))}: ${compact(u.input)} in, ${compact(u.output)} out, ${compact(u.cacheRead)} cache read, ${compact(u.cacheWrite)} cache write${unknown}`
}

const toolsText = (h: SessionHolds | null, now: number): string =>
  (h?.running.length ?? 0) === 0
    ? 'no tool running'
    : `running ${h!.running.map((r) => `${oneLine(r.name)}${r.since === null ? '' : ` (${formatAge(Math.max(0, now - r.since))})`}`).join(', ')}`

/** One cell per asked column, for the row's extra line. */
export function columnCells(row: SessionRow, columns: readonly Column[], now: number): string[] {
  const t = treeOf(row)
  const h = holdsOf(row.facts)
  const cells: string[] = []
  for (const c of COLUMNS) {
    if (!columns.includes(c)) continue
    if (c === 'phase') cells.push(`phase ${phaseOfRow(row)}`)
    else if (c === 'tokens') cells.push(tokensText(t))
    else if (c === 'files') cells.push(`${changedCount(t)} file${changedCount(t) === 1 ? '' : 's'} changed`)
    else if (c === 'tools') cells.push(toolsText(h, now))
    else if (c === 'background') cells.push(`${h?.background.length ?? 0} background`)
    else if (c === 'models') cells.push(t.models.length === 0 ? 'model unknown' : oneLine(t.models.join(', ')))
    else cells.push(`${row.childIds.length} subagent${row.childIds.length === 1 ? '' : 's'}`)
  }
  return cells
}

/** Parse `--columns a,b`: every name known, else an error naming the list. */
export function parseColumns(values: readonly string[]): Column[] {
  const out: Column[] = []
  for (const v of values.flatMap((x) => x.split(','))) {
    const name = v.trim().toLowerCase()
    if (name === '') continue
    if (!(COLUMNS as readonly string[]).includes(name))
      throw new Error(`Unknown column "${oneLine(v)}": choose from ${COLUMNS.join(', ')}.`)
    if (!out.includes(name as Column)) out.push(name as Column)
  }
  return out
}

/** `cast explain --json`'s "holds" section. */
export interface HoldsJson {
  phase: Phase
  usage: UsageJson | null
  /** The session's own usage, without its subagents. */
  own_usage: UsageJson | null
  unknown_usage_lines: number
  /** Sessions in the tree without any usage record (an agent that writes none). */
  sessions_without_usage: number
  partial: boolean
  models: string[]
  changed_files: {path: string; writes: number}[]
  changed_files_more: number
  running_tools: {name: string; since: string | null}[]
  background: string[]
  subagents: {id: string; short_id: string; title: string | null; state: WorkState; phase: Phase}[]
}

export function holdsJson(row: SessionRow, children: readonly SessionRow[], shortId: (id: string) => string): HoldsJson {
  const t = treeOf(row)
  const h = holdsOf(row.facts)
  return {
    background: [...(h?.background ?? [])],
    changed_files: t.changed.map((c) => ({path: c.path, writes: c.count})),
    changed_files_more: t.changedMore,
    models: [...t.models],
    own_usage: usageJson(h?.usage ?? null),
    partial: t.partial,
    phase: phaseOfRow(row),
    running_tools: (h?.running ?? []).map((r) => ({name: r.name, since: r.since === null ? null : new Date(r.since).toISOString()})),
    sessions_without_usage: t.withoutUsage,
    subagents: children.map((c) => ({
      id: c.id,
      phase: phaseOfRow(c),
      short_id: shortId(c.id),
      state: c.state,
      title: c.renamed ?? c.facts.title,
    })),
    unknown_usage_lines: t.unknownUsage,
    usage: usageJson(t.usage),
  }
}

/** The human "Holds:" section of `cast explain`. Agent strings go through oneLine. */
export function holdsLines(j: HoldsJson, t: TreeHolds, now: number): string[] {
  const lines = ['Holds:', `  phase             ${j.phase}`]
  lines.push(`  ${tokensText(t)}${j.sessions_without_usage > 0 ? ` · ${j.sessions_without_usage} session(s) record no usage` : ''}`)
  if (j.partial) lines.push('  (counted from part of a file: earlier lines not counted)')
  lines.push(`  models            ${j.models.length === 0 ? '(unknown)' : oneLine(j.models.join(', '))}`)
  lines.push(`  changed files     ${j.changed_files.length + j.changed_files_more}`)
  for (const c of j.changed_files.slice(0, 20)) lines.push(`    ${oneLine(c.path)}  ×${c.writes}`)
  if (j.changed_files.length > 20 || j.changed_files_more > 0)
    lines.push(`    … ${j.changed_files.length - Math.min(20, j.changed_files.length) + j.changed_files_more} more`)
  const running = j.running_tools.map(
    (r) => `${oneLine(r.name)}${r.since === null ? '' : ` (${formatAge(Math.max(0, now - Date.parse(r.since)))})`}`,
  )
  lines.push(`  running tools     ${running.length === 0 ? '(none)' : running.join(', ')}`)
  lines.push(`  background        ${j.background.length === 0 ? '(none)' : oneLine(j.background.join(', '))}`)
  lines.push(`  subagents         ${j.subagents.length === 0 ? '(none)' : j.subagents.length}`)
  for (const c of j.subagents)
    lines.push(`    ${c.short_id}  ${c.state} · ${c.phase}  ${c.title === null ? '(untitled)' : oneLine(c.title)}`)
  return lines
}
