/**
 * Which identities and device names the team accepts: names a person reads to decide whom they
 * trust, so two names that look alike must not both pass. A name is accepted only when it is
 * already in Unicode NFKC form (so `ｂｏｂ` and `bob` are not two names), holds no control, format
 * (zero-width, bidi overrides and isolates, soft hyphen), unassigned, private-use or surrogate
 * code point, no line or paragraph separator, and its letters come from one script (Latin and
 * Cyrillic mixed, as in a Cyrillic `а` in `аlice`, is refused), except the mixes one writing
 * system needs (Japanese: Han, Hiragana, Katakana; Korean: Han, Hangul; Chinese: Han, Bopomofo;
 * each with Latin). Digits and punctuation belong to no script. Pure: no I/O.
 */

export type NameKind = 'device' | 'identity'

const LIMITS: Record<NameKind, number> = {device: 128, identity: 200}

/** Characters that print nothing, change direction or break lines. */
// Each listed code point is tested alone (for…of over code points), never combined with a neighbour.
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u034F\u17B4\u17B5\u180B-\u180F\uFE00-\uFE0F]/u

const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Khmer',
  'Mongolian',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
] as const

const SCRIPT_RES = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')] as const)

/** Mixes one writing system needs; any name's scripts must fit in one of these or be a single script. */
const ALLOWED_MIXES: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Hangul'],
  ['Latin', 'Han', 'Bopomofo'],
]

function scriptOf(ch: string): string | null {
  if (!/\p{L}|\p{M}/u.test(ch)) return null // digits, punctuation, symbols: no script
  if (/\p{Script=Inherited}|\p{Script=Common}/u.test(ch)) return null
  for (const [name, re] of SCRIPT_RES) if (re.test(ch)) return name
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

/** The scripts of a name's letters, in order of first appearance. */
export function scriptsOf(name: string): string[] {
  const seen: string[] = []
  for (const ch of name) {
    const s = scriptOf(ch)
    if (s !== null && !seen.includes(s)) seen.push(s)
  }

  return seen
}

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

/** Why `name` is not a safe identity or device name, or null when it is. The reason shows code points, never the raw name. */
export function unsafeName(name: string, kind: NameKind): string | null {
  const what = kind === 'device' ? 'a device name' : 'an identity'
  if (name.length === 0) return `${what} is empty`
  const n = [...name].length
  if (n > LIMITS[kind]) return `${what} is at most ${LIMITS[kind]} characters (this one has ${n})`
  for (const ch of name) {
    if (INVISIBLE.test(ch)) return `${what} may not hold ${codePoint(ch)} (a control, invisible or direction character)`
    if (/\s/u.test(ch)) return `${what} may not hold white space (${codePoint(ch)})`
  }

  if (name.normalize('NFKC') !== name) {
    return `${what} must be written in NFKC form (${JSON.stringify(name.normalize('NFKC'))} instead; it has compatibility or combining forms)`
  }

  const scripts = scriptsOf(name)
  if (scripts.length > 1 && !ALLOWED_MIXES.some((m) => scripts.every((s) => m.includes(s)))) {
    const where = [...name].map((ch) => `${codePoint(ch)} ${scriptOf(ch) ?? '-'}`).filter((x) => !x.endsWith(' -'))
    return `${what} mixes scripts (${scripts.join(' and ')}: ${where.slice(0, 8).join(', ')}); a name that looks like another is refused`
  }

  return null
}

/** A name as shown beside its key: the name if it is safe, else its code points (never the raw text). */
export function shownName(name: string, kind: NameKind): string {
  if (unsafeName(name, kind) === null) return name
  return `[unsafe name: ${[...name]
    .slice(0, 40)
    .map((ch) => (/^[\x21-\x7e]$/.test(ch) ? ch : `<${codePoint(ch)}>`))
    .join('')}]`
}
