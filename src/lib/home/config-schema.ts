import {z} from 'zod'

import {CastError} from '../base/cast-error.js'
import {BUILTIN_PRESENCES, type CastConfig, IDENTITY_SHAPE} from './config-shape.js'
import {EXIT} from '../base/exit-codes.js'
import {parseDuration} from '../../core/model/duration-text.js'

const duration = z.union([z.number().int().nonnegative(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v
  const ms = parseDuration(v)
  if (ms === null) {
    ctx.addIssue({code: 'custom', message: `"${v}" is not a duration (try "15m", "2h", "7d")`})
    return z.NEVER
  }

  return ms
})

const argv = z.array(z.string()).min(1)

/** An identity as `CAST_USER` gives it: an email or user@host, no spaces. */
const identity = z.string().trim().regex(IDENTITY_SHAPE, 'an identity like "ana@example.com" (3+ characters, no spaces or commas)')

/** The team's members: identities, or {id, name}. */
const members = z
  .array(z.union([identity, z.strictObject({id: identity, name: z.string().min(1).optional()})]))
  .superRefine((list, ctx) => {
    const seen = new Set<string>()
    for (const [i, t] of list.entries()) {
      const id = (typeof t === 'string' ? t : t.id).trim().toLowerCase()
      if (seen.has(id)) ctx.addIssue({code: 'custom', message: `"${id}" is listed twice`, path: typeof t === 'string' ? [i] : [i, 'id']})
      seen.add(id)
    }
  })

const Config = z.strictObject({
  $schema: z.string().optional(),
  agents: z
    .record(z.string(), z.strictObject({headless: argv.optional(), interactive: argv.optional(), resume: argv.optional()}))
    .default({}),
  // `cast hosts add` writes these (docs/fleet.md); the target is checked again where it is used.
  fleet: z
    .strictObject({
      budget: duration.refine((ms) => ms > 0 && ms <= 60_000, 'between 1ms and 60s').optional(),
      // true: cast sessions and cast status list the fleet without --fleet (--no-fleet: this machine only).
      default: z.boolean().optional(),
    })
    .optional(),
  hosts: z
    .record(
      z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'lowercase letters, digits, "-" and "_"'),
      z.strictObject({
        budget: duration.refine((ms) => ms > 0 && ms <= 60_000, 'between 1ms and 60s').optional(),
        target: z.string().min(1).max(300),
      }),
    )
    .optional(),
  inbox: z
    .strictObject({recency: duration.refine((ms) => ms > 0, 'must be longer than 0 (try "7d")').default(7 * 24 * 3600 * 1000)})
    .default({recency: 7 * 24 * 3600 * 1000}),
  notify: z
    .strictObject({
      backends: z
        .array(z.enum(['auto', 'freedesktop', 'macos', 'tmux', 'bell', 'command', 'stdout', 'push', 'ntfy']))
        .min(1)
        .default(['auto']),
      command: z.union([argv, z.null()]).default(null),
      done: z.enum(['soft', 'normal', 'off']).default('soft'),
      group_window: duration.refine((ms) => ms <= 10_000, 'at most 10s (try "150ms")').default(150),
      quiet: z.boolean().default(true),
      // The phone (docs/web.md, "The phone"): held while you are at the desk.
      active_window: duration.default(3 * 60_000),
      push: z.strictObject({content: z.enum(['full', 'none']).default('full')}).default({content: 'full'}),
      ntfy: z
        .strictObject({
          server: z.string().url().default('https://ntfy.sh'),
          topic: z.string().regex(/^[\w-]{1,64}$/, 'letters, digits, "-" and "_" (at most 64)'),
          token: z.union([z.string(), z.null()]).default(null),
          actions_url: z.union([z.string().url(), z.null()]).default(null),
        })
        .optional(),
    })
    .optional(),
  presences: z
    .array(
      z.strictObject({
        instructions: z.string().default(''),
        name: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a lowercase name like "focus"'),
        wait_budget: z.union([duration, z.null()]).default(null),
      }),
    )
    .default([])
    .superRefine((list, ctx) => {
      const seen = new Set<string>()
      for (const [i, p] of list.entries()) {
        if (seen.has(p.name)) ctx.addIssue({code: 'custom', message: `presence "${p.name}" is defined twice`, path: [i, 'name']})
        seen.add(p.name)
      }
    }),
  screen_patterns: z.record(z.string(), z.record(z.string(), z.array(z.string()))).default({}),
  // An argv, or {command, timeout} (the timeout defaults to 20s).
  settle_classifier: z.union([argv, z.strictObject({command: argv, timeout: duration.optional()}), z.null()]).default(null),
  team: z
    .union([
      members,
      // The team store: {url, name}; the URL may come from a variable (url_env).
      z.strictObject({
        members: members.optional(),
        name: z.string().min(1).optional(),
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
          .optional(),
        url_env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
          .optional(),
      }),
    ])
    .default([]),
})

export function validateConfig(raw: unknown, file: string): CastConfig {
  const r = Config.safeParse(raw)
  if (!r.success) {
    const issue = r.error.issues[0]!
    const key = issue.path.length > 0 ? issue.path.join('.') : '(top level)'
    throw new CastError(`Config ${file}: key "${key}": ${issue.message}`, EXIT.USAGE)
  }

  const c = r.data
  for (const [agent, pats] of Object.entries(c.screen_patterns)) {
    for (const [kind, list] of Object.entries(pats)) {
      for (const [i, p] of list.entries()) {
        try {
          new RegExp(p)
        } catch (error) {
          throw new CastError(`Config ${file}: key "screen_patterns.${agent}.${kind}.${i}": ${(error as Error).message}`, EXIT.USAGE)
        }
      }
    }
  }

  const custom = c.presences.map((p) => ({instructions: p.instructions, name: p.name, waitBudgetMs: p.wait_budget}))
  const names = new Set(custom.map((p) => p.name))
  return {
    agents: c.agents,
    file,
    fleet: {budgetMs: c.fleet?.budget ?? 1500, byDefault: c.fleet?.default === true},
    hosts: Object.entries(c.hosts ?? {}).map(([name, h]) => ({budgetMs: h.budget ?? null, name, target: h.target})),
    inbox: {recencyMs: c.inbox.recency},
    notify: c.notify
      ? {
          backends: c.notify.backends,
          command: c.notify.command,
          done: c.notify.done,
          groupWindowMs: c.notify.group_window,
          quiet: c.notify.quiet,
          activeWindowMs: c.notify.active_window,
          push: c.notify.push,
          ntfy: c.notify.ntfy
            ? {actionsUrl: c.notify.ntfy.actions_url, server: c.notify.ntfy.server, token: c.notify.ntfy.token, topic: c.notify.ntfy.topic}
            : null,
        }
      : undefined,
    presences: [...BUILTIN_PRESENCES.filter((p) => !names.has(p.name)), ...custom],
    screenPatterns: c.screen_patterns,
    settleClassifier:
      c.settle_classifier === null ? null : Array.isArray(c.settle_classifier) ? c.settle_classifier : c.settle_classifier.command,
    settleClassifierTimeoutMs:
      c.settle_classifier !== null && !Array.isArray(c.settle_classifier) ? (c.settle_classifier.timeout ?? null) : null,
    team: (Array.isArray(c.team) ? c.team : (c.team.members ?? [])).map((t) => (typeof t === 'string' ? {id: t} : t)),
    teamStore: Array.isArray(c.team) ? undefined : {name: c.team.name ?? null, url: c.team.url ?? null, urlEnv: c.team.url_env ?? null},
  }
}
