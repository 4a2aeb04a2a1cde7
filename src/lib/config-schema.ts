import {z} from 'zod'

import {CastError} from './base-command.js'
import {BUILTIN_PRESENCES, type CastConfig} from './config.js'
import {EXIT} from './exit-codes.js'
import {parseDuration} from '../core/model/durations.js'

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

const Config = z.strictObject({
  $schema: z.string().optional(),
  agents: z
    .record(z.string(), z.strictObject({headless: argv.optional(), interactive: argv.optional(), resume: argv.optional()}))
    .default({}),
  inbox: z.strictObject({recency: duration.default(7 * 24 * 3600 * 1000)}).default({recency: 7 * 24 * 3600 * 1000}),
  presences: z
    .array(
      z.strictObject({
        instructions: z.string().default(''),
        name: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a lowercase name like "focus"'),
        wait_budget: z.union([duration, z.null()]).default(null),
      }),
    )
    .default([]),
  screen_patterns: z.record(z.string(), z.record(z.string(), z.array(z.string()))).default({}),
  settle_classifier: z.union([argv, z.null()]).default(null),
  team: z
    .array(z.union([z.string().min(3), z.strictObject({id: z.string().min(3), name: z.string().optional()})]))
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
    inbox: {recencyMs: c.inbox.recency},
    presences: [...BUILTIN_PRESENCES.filter((p) => !names.has(p.name)), ...custom],
    screenPatterns: c.screen_patterns,
    settleClassifier: c.settle_classifier,
    team: c.team.map((t) => (typeof t === 'string' ? {id: t} : t)),
  }
}
