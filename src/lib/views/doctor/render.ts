/**
 * `cast doctor`'s human report: one line per check, each agent's block, the warnings and the
 * problems with their fixes. The command prints each line (control characters made visible).
 */
import type {Env} from '../../home/env.js'
import {HOOK_SPECS, tildePath} from '../../agents/hooks/index.js'
import {configPath} from '../../home/config.js'
import {readScreenOverrides} from '../../../core/ingest/screen.js'
import type {DoctorAdapter, DoctorReport} from './report.js'

export function renderDoctor(report: DoctorReport, env: Env): string[] {
  const lines: string[] = []
  const {adapters, problems, tmux, warnings} = report
  const cfg = report.config.path
  const cfgExists = report.config.exists
  const overrides = readScreenOverrides(configPath(env))
  const t = (p: string): string => tildePath(p, env)
  const st = report.store
  lines.push(
    st.ok
      ? `store    ${t(st.path)}: ok (schema ${st.schema_version}, ${plural(st.sessions ?? 0, 'session')}, ${plural(st.files ?? 0, 'file')} read, ${plural(st.parse_errors ?? 0, 'malformed line')} skipped)`
      : `store    ${t(st.path)}: UNREADABLE (${st.error})`,
  )
  if (tmux.binary === null) lines.push('tmux     not installed: no screen fallback')
  else if (!tmux.server) lines.push(`tmux     ${tmux.binary}: no server running (the screen is read once one runs)`)
  else
    lines.push(
      `tmux     ${tmux.binary}: ${plural(tmux.panes, 'pane')}, ${tmux.agent_panes} running an agent, ${tmux.read} tied to a session${tmux.error ? ` (error: ${tmux.error})` : ''}`,
    )
  if (tmux.servers.length > 0) lines.push(`         servers: ${tmux.servers.map((x) => t(x)).join(', ')}`)
  lines.push(
    `config   ${t(cfg)}${cfgExists ? '' : ' (none)'}${Object.keys(overrides).length > 0 ? `: screen_patterns for ${Object.keys(overrides).join(', ')}` : ''}`,
  )
  for (const a of adapters) lines.push('', ...adapterLines(a, t))
  lines.push('')
  for (const w of warnings) lines.push(`warning: ${w}`)
  // A CLI newer than the conformance suite last passed with is not a problem, but it is not "none".
  const newer = adapters.filter((a) => a.cli?.compared === 'newer').length
  const untested = newer === 0 ? '' : `${plural(newer, 'agent CLI')} newer than tested`
  if (problems.length === 0) {
    lines.push(untested === '' ? 'No problems found.' : `No problems found; ${untested} (see the warnings above).`)
  } else {
    if (untested !== '') lines.push(`${untested} (see the warnings above).`)
    lines.push(`${plural(problems.length, 'problem')}:`)
    for (const p of problems) lines.push(`  ✗ ${p.message}${p.fix ? `\n    fix: ${p.fix}` : ''}`)
  }

  return lines
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

const HOOKS: Readonly<Record<string, string>> = {
  error: 'settings unreadable',
  installed: 'installed',
  not_installed: 'not installed',
  partial: 'partly installed',
  stale: 'installed, stale',
  unknown: 'unknown',
  unsupported: 'none (the agent has no shell hooks)',
}

/** One agent's block: its best source, roots, what was read, its CLI, its hooks, its sources. */
function adapterLines(a: DoctorAdapter, t: (p: string) => string): string[] {
  const lines: string[] = []
  lines.push(`${a.label} (${a.agent})  best source: ${a.state_source ?? 'none'}`)
  for (const [i, r] of a.roots.entries()) lines.push(`  ${i === 0 ? 'roots   ' : '        '}  ${t(r.path)}  ${r.exists ? 'ok' : 'missing'}`)
  lines.push(`  sessions  ${a.sessions} · ${plural(a.files, 'file')} read · ${plural(a.parse_errors, 'malformed line')} skipped`)
  if (a.cli) {
    const c = a.cli
    const v =
      c.path === null
        ? `${c.bin} not on PATH`
        : `${c.bin} ${c.installed ?? '(version unknown)'}${c.compared === 'newer' ? ' — NEWER than' : ' · conformance passed with'} ${c.tested}`
    lines.push(`  cli       ${v}`)
  }
  const h = a.hooks
  const where = h.file ? ` (${t(h.file)})` : ''
  const bin = h.binary_exists === false ? `, binary MISSING: ${h.binary ?? '?'}` : ''
  const hint =
    h.state === 'not_installed' || h.state === 'stale' || h.state === 'partial'
      ? ` · cast hooks install ${HOOK_SPECS.find((x) => x.agent === a.agent)?.name}`
      : ''
  lines.push(`  hooks     ${HOOKS[h.state] ?? h.state}${where}${bin}${hint}`)
  const parts = a.sources.map((src) => {
    if (src === 'hooks') return `hooks (${plural(a.hook_sessions, 'session')})`
    if (src === 'registry' || src === 'lock') return `${src} (${plural(a.claims[src] ?? 0, 'session')})`
    if (src === 'open_file') return `open file handle (${plural(a.claims['process'] ?? 0, 'session')})`
    if (src === 'screen') return `screen (${a.screen_sessions} read now)`
    return src
  })
  lines.push(`  sources   ${parts.length > 0 ? parts.join(' > ') : 'none yet (no sessions found)'}`)
  return lines
}
