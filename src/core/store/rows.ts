/**
 * Reading SQLite rows: the column values better-sqlite3 returns, turned into typed fields.
 */
export type Row = Record<string, unknown>

export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
export const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

/** JSON text, or `fallback` when it is absent or does not parse. */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}
