/**
 * What a record family needs of the store: the connection, the prepared-statement cache and the
 * write transaction. `Store` (./store.ts) is one; the families it delegates to take a `Conn`, so
 * store.ts imports them and none of them imports store.ts.
 */
import type Database from 'better-sqlite3'

export interface Conn {
  readonly db: Database.Database
  /** A prepared statement, created once per connection. */
  q(sql: string): Database.Statement
  /** Run `fn` in one IMMEDIATE write transaction (inside one already open: in it). */
  tx<T>(fn: () => T): T
}
