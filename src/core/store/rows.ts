/**
 * Reading SQLite rows: the column values better-sqlite3 returns, turned into typed fields.
 */
export type Row = Record<string, unknown>

export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
export const str = (v: unknown): string | null => (v === null || v === undefined ? null : text(v))

/**
 * A column value as text. better-sqlite3 hands back strings, numbers, bigints and Buffers (BLOBs);
 * those print as `String` prints them. Anything else (a value that did not come from SQLite) is
 * JSON, never "[object Object]".
 */
export function text(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v)
  if (Buffer.isBuffer(v)) return v.toString('utf8')
  if (typeof v === 'symbol') return v.toString()
  return JSON.stringify(v) ?? ''
}

/** JSON text, or `fallback` when it is absent or does not parse. */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}
