/**
 * The store's record families beyond the five the `Store` class carries as methods
 * (contributions, sessions, reconcile, records, leases: store.ts), one lazy loader each.
 *
 * A command reaches the store through two modules only: store.ts (the connection, its
 * transactions and the families every sync needs) and this one. Each family's functions take the
 * open `Store` as their first argument:
 *
 *     const {listSchedules} = await families.schedules()
 *     listSchedules(store, now)
 *
 * A loader is a dynamic import, so a command loads the modules of the families it asks for and
 * no others: importing this file loads no family (the fast paths in src/lib/state/state-fast.ts and
 * src/lib/notify/status-fast.ts count on that). src/lib and src/team, the application layer
 * commands call, import family modules directly. docs/architecture.md, "Calling the store".
 */
export type {Reservation} from './spawns.js'
export type {MachineRow, SkippedRow} from './team/reader.js'
export {text} from './rows.js'

/** The local store's families (src/core/store/*.ts). */
export const families = {
  decisions: () => import('./decisions.js'),
  outbox: () => import('./outbox.js'),
  ownership: () => import('./ownership.js'),
  presence: () => import('./presence.js'),
  schedules: () => import('./schedules.js'),
  spawns: () => import('./spawns.js'),
  triage: () => import('./triage.js'),
} as const

/**
 * The team store's families (src/core/store/team/*.ts), on PostgreSQL: the connection and its
 * URL (client), the write functions (calls), machines, the reader, the schema, what publishing
 * set aside (aside), the publisher and the team's stream of transitions (watch).
 */
export const teamFamilies = {
  aside: () => import('./team/aside.js'),
  calls: () => import('./team/calls.js'),
  client: () => import('./team/client.js'),
  machines: () => import('./team/machines.js'),
  publisher: () => import('./team/publisher.js'),
  reader: () => import('./team/reader.js'),
  schema: () => import('./team/schema.js'),
  watch: () => import('./team/watch.js'),
} as const
