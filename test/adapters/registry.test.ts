/**
 * An agent is one module (issue 12 point 1): everything cast knows about an agent lives in its
 * folder under src/adapters/, and src/adapters/index.ts is the only list. This fails when an
 * agent's names (its id, display names, CLI binary and process names, aliases, session variable,
 * the environment variables it honours) appear in any file under src/ outside its own folder and
 * the registry.
 */
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

import {agentKey, type AgentModule, binOf, createRegistry, MODULES, registry} from '../../src/adapters/index.js'

const SRC = path.resolve(import.meta.dirname, '../../src')
const ADAPTERS_DIR = path.join(SRC, 'adapters')
const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, {withFileTypes: true})
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []))

/**
 * Files that may name agents until the work that owns them now is merged, each with the reason.
 * Remove an entry when its file reads the registry.
 */
/** Folders under src/adapters/ that hold no agent: the kit every adapter shares (agent-neutral). */
const SHARED_FOLDERS = new Set(['kit'])

const PENDING_MERGE: Readonly<Record<string, string>> = {}

/** Names that are also ordinary words in code and prose: they count only as a quoted literal. */
const ORDINARY_WORDS: ReadonlySet<string> = new Set(['cursor', 'pi'])

/** Every name of an agent that must not appear outside its folder. */
function namesOf(m: AgentModule): string[] {
  const bin = binOf(m)
  const raw = [
    m.id,
    m.reading.label,
    m.names.short,
    ...m.names.aliases,
    ...m.names.aliases.map((a) => agentKey(a)),
    ...(bin ? [bin] : []),
    ...m.screen.processes,
    ...(m.sessionVariable ? [m.sessionVariable] : []),
    // XDG_* and the like are everyone's: only the variables that are the agent's own.
    ...m.env.filter((v) => !v.startsWith('XDG_')),
  ]
  return [...new Set(raw)]
}

const escape = (s: string): string => s.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A name as it is searched: an ordinary word only between quotes ('cursor', "pi", `pi`); any
 * other name in any case, as a whole word where `_`, `-` and `.` also end a word (so `claude`
 * finds CLAUDE_CONFIG_DIR and CLAUDE.md, and `codex` finds `codex exec`).
 */
function patternOf(name: string): RegExp {
  if (ORDINARY_WORDS.has(name.toLowerCase())) return new RegExp(`(['"\`])${escape(name)}\\1`)
  return new RegExp(`(?<![A-Za-z0-9])${escape(name)}(?![A-Za-z0-9])`, 'i')
}

/** `file:line: id (the names found)` for every line of `file` that names `m`. */
function hits(file: string, m: AgentModule): string[] {
  const patterns = namesOf(m).map((name) => ({name, re: patternOf(name)}))
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      const found = patterns.filter((p) => p.re.test(line)).map((p) => p.name)
      return found.length > 0 ? [`${path.relative(SRC, file)}:${i + 1}: ${m.id} (${found.join(', ')})`] : []
    })
}

/** Does the exception `p` (a file, a folder ending in `/`, or a path with `*` for one folder) cover `rel`? */
const covers = (p: string, rel: string): boolean =>
  p.endsWith('/') ? rel.startsWith(p) : p.includes('*') ? new RegExp(`^${p.split('*').map(escape).join('[^/]+')}$`).test(rel) : rel === p
const pending = (rel: string): boolean => Object.keys(PENDING_MERGE).some((p) => covers(p, rel))

describe('an agent is one module', () => {
  const byFolder = new Map<string, AgentModule>()
  it('every folder under src/adapters/ exports exactly one agent module, and the registry lists each', async () => {
    const dirs = fs.readdirSync(ADAPTERS_DIR, {withFileTypes: true}).filter((e) => e.isDirectory() && !SHARED_FOLDERS.has(e.name))
    for (const d of dirs) {
      const mod = (await import(path.join(ADAPTERS_DIR, d.name, 'index.ts'))) as Record<string, unknown>
      const agents = Object.values(mod).filter((v): v is AgentModule => MODULES.includes(v as AgentModule))
      expect(agents, `${d.name}/index.ts exports one registered AgentModule`).toHaveLength(1)
      byFolder.set(d.name, agents[0]!)
    }

    expect([...byFolder.values()].sort((a, b) => a.id.localeCompare(b.id))).toEqual([...MODULES].sort((a, b) => a.id.localeCompare(b.id)))
  })

  it("every agent folder has a definition.ts whose definition src/adapters/agents.ts lists, and it loads that folder's module", async () => {
    const {AGENTS} = await import('../../src/adapters/agents.js')
    const dirs = fs.readdirSync(ADAPTERS_DIR, {withFileTypes: true}).filter((e) => e.isDirectory() && !SHARED_FOLDERS.has(e.name))
    const defs = []
    for (const d of dirs) {
      const mod = (await import(path.join(ADAPTERS_DIR, d.name, 'definition.ts'))) as Record<string, unknown>
      const found = Object.values(mod).filter((v) => AGENTS.includes(v as (typeof AGENTS)[number]))
      expect(found, `${d.name}/definition.ts exports one listed definition`).toHaveLength(1)
      defs.push(found[0])
    }

    expect(defs).toHaveLength(AGENTS.length)
    for (const [i, d] of AGENTS.entries()) expect(await d.load()).toBe(MODULES[i])
  })

  it('a definition that does not match its module fails the registry at start', async () => {
    const {AGENTS} = await import('../../src/adapters/agents.js')
    const {loadAgent} = await import('../../src/adapters/index.js')
    const [a] = AGENTS
    await expect(loadAgent({...a!, sessionVariable: 'SOMETHING_ELSE'})).rejects.toThrow(/does not match its module/)
    await expect(loadAgent({...a!, id: 'another'})).rejects.toThrow(/does not match its module/)
    await expect(loadAgent(a!)).resolves.toBe(MODULES[0])
  })

  it("no agent's name appears under src/ outside its folder and src/adapters/agents.ts", async () => {
    if (byFolder.size === 0) {
      for (const d of fs.readdirSync(ADAPTERS_DIR, {withFileTypes: true}).filter((e) => e.isDirectory() && !SHARED_FOLDERS.has(e.name))) {
        const mod = (await import(path.join(ADAPTERS_DIR, d.name, 'index.ts'))) as Record<string, unknown>
        const m = Object.values(mod).find((v): v is AgentModule => MODULES.includes(v as AgentModule))
        if (m) byFolder.set(d.name, m)
      }
    }

    const bad: string[] = []
    for (const file of files(SRC)) {
      const rel = path.relative(SRC, file)
      // The one list: each agent's definition, one line each (adding an agent is its folder and that line).
      if (rel === path.join('adapters', 'agents.ts') || pending(rel)) continue
      for (const [folder, m] of byFolder) {
        if (rel.startsWith(path.join('adapters', folder) + path.sep)) continue
        bad.push(...hits(file, m))
      }
    }

    expect(bad).toEqual([])
  })

  it('the check finds a name where one is written (a guard that reads nothing would pass)', () => {
    const [first] = MODULES
    expect(patternOf(first!.id).test(`const a = '${first!.id}'`)).toBe(true)
    expect(patternOf('pi').test("agent: 'pi'")).toBe(true)
    expect(patternOf('pi').test('Math.pi, a pie')).toBe(false)
    expect(patternOf('cursor').test('move the cursor')).toBe(false)
    expect(patternOf('claude').test('export CLAUDE_CONFIG_DIR=1; cat CLAUDE.md')).toBe(true)
    expect(patternOf('codex').test('codexHome(ctx)')).toBe(false)
    // The agent's own folder is where its names are: the check finds them there.
    const own = fs
      .readdirSync(ADAPTERS_DIR)
      .find((d) => fs.existsSync(path.join(ADAPTERS_DIR, d, 'index.ts')) && hits(path.join(ADAPTERS_DIR, d, 'index.ts'), first!).length > 0)
    expect(own).toBeDefined()
    expect(namesOf(first!).length).toBeGreaterThan(3)
  })

  it('pending-merge exceptions exist (an entry for a file that is gone or fixed is removed)', () => {
    for (const p of Object.keys(PENDING_MERGE)) {
      const found = files(SRC).some((f) => covers(p, path.relative(SRC, f)))
      expect(found, p).toBe(true)
    }
  })
})

describe('the registry', () => {
  it("states the same session variables as src/adapters/session-variables.ts, which cast state's fast path reads", async () => {
    const {SESSION_VARIABLES} = await import('../../src/adapters/session-variables.js')
    expect(SESSION_VARIABLES).toEqual(registry().sessionVariables)
    expect(SESSION_VARIABLES.length).toBeGreaterThan(0)
  })

  it("states the same process names and holding agents as src/adapters/session-variables.ts, which cast state's ancestry reads", async () => {
    const {AGENT_PROCESSES, HOLDING_AGENTS} = await import('../../src/adapters/session-variables.js')
    expect(AGENT_PROCESSES).toEqual(registry().screenPatterns.map((p) => ({agent: p.agent, processes: p.processes})))
    expect(HOLDING_AGENTS).toEqual(
      registry()
        .adapters.filter((a) => (a.openFileProcesses?.length ?? 0) > 0)
        .map((a) => a.agent),
    )
  })

  it('states the same path rules and screen patterns as src/adapters/light.ts, which a sync that finds nothing changed reads', async () => {
    const {LIGHT_MODULES} = await import('../../src/adapters/light.js')
    const keys = ['agent', 'match', 'openFileProcesses', 'processScan', 'roots', 'sessionAtStart', 'skipDir', 'unwrittenRun'] as const
    const pick = (a: object): Record<string, unknown> =>
      Object.fromEntries(keys.map((k) => [k, (a as Record<string, unknown>)[k]]).filter(([, v]) => v !== undefined))
    // The same values, the functions the same functions: each adapter is built over its rules.ts.
    expect(LIGHT_MODULES.map((m) => pick(m.rules))).toEqual(registry().adapters.map((a) => pick(a)))
    for (const [i, m] of LIGHT_MODULES.entries())
      for (const k of keys) expect(m.rules[k], `${m.rules.agent}.${k}`).toBe(registry().adapters[i]![k])
    expect(LIGHT_MODULES.map((m) => m.screen)).toEqual(registry().screenPatterns)
  })

  it('is the built-in list, in doctor order, each agent whole', () => {
    const r = registry()
    expect(r.ids).toEqual(MODULES.map((m) => m.id))
    for (const m of MODULES) {
      expect(r.byId(m.id)).toBe(m)
      expect(r.adapterFor(m.id)).toBe(m.reading)
      expect(m.hooks.none !== undefined || m.hooks.spec !== undefined).toBe(true)
      for (const a of [m.id, ...m.names.aliases]) expect(r.byAlias(a)?.id).toBe(m.id)
    }
  })

  it('refuses two agents with one id or one spelling, and a module whose parts disagree', () => {
    const [a, b] = MODULES as [AgentModule, AgentModule]
    expect(() => createRegistry([a, a])).toThrow(/registered twice/)
    expect(() => createRegistry([a, {...b, names: {...b.names, aliases: [a.id]}}])).toThrow(/names both/)
    expect(() => createRegistry([{...a, id: `${a.id}_copy`}])).toThrow(/has parts for/)
  })
})
