/**
 * Text PostgreSQL cannot store, made safe before it leaves the machine: U+0000 (no text or jsonb
 * value may hold it) and lone UTF-16 surrogates (not UTF-8; jsonb refuses "\udc00") become
 * U+FFFD, in every string and object key of a value. Everything else passes unchanged.
 */

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what PostgreSQL refuses
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

export function safeString(s: string): string {
  return s.replace(UNSAFE, '\uFFFD')
}

/** A copy of `v` (JSON-like: strings, numbers, booleans, null, arrays, plain objects) with every string safe. */
export function pgSafe<T>(v: T): T {
  if (typeof v === 'string') return safeString(v) as T
  if (Array.isArray(v)) return (v as unknown[]).map((x) => pgSafe(x)) as T
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[safeString(k)] = pgSafe(x)
    return out as T
  }

  return v
}
