/**
 * Parse once: the one place a JSONL line becomes a record. The engine (and the
 * read worker) read a line, parse it here, and hand the adapter's parser the object; a malformed
 * line is skipped and counted once, by the caller, never by the parser. Pure: no I/O.
 */
import type {Contribution, JsonRecord, LineParser} from './adapter.js'

/**
 * What one line of a JSON log is: blank (skipped, no error), not JSON, JSON that is not an object
 * (both malformed: counted), or a record.
 */
export type ParsedLine =
  | {readonly kind: 'blank'}
  | {readonly kind: 'not-json'}
  | {readonly kind: 'not-object'}
  | {readonly kind: 'record'; readonly rec: JsonRecord}

const BLANK: ParsedLine = {kind: 'blank'}
const NOT_JSON: ParsedLine = {kind: 'not-json'}
const NOT_OBJECT: ParsedLine = {kind: 'not-object'}

/** Parse one line's text: a JSON object is a record; an array, a scalar or bad JSON is malformed. */
export function parseJsonLine(text: string): ParsedLine {
  if (text.trim() === '') return BLANK
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return NOT_JSON
  }

  return typeof value === 'object' && value !== null && !Array.isArray(value) ? {kind: 'record', rec: value as JsonRecord} : NOT_OBJECT
}

/** Feed a parsed line to a JSON parser: false when it is malformed (the parser refused it, or threw). */
export function feedParsed<S>(parser: LineParser<S>, state: S, parsed: ParsedLine, text: string, offset: number): boolean {
  try {
    if (parser.lines === 'text') return parser.line(state, text, offset)
    if (parsed.kind === 'blank') return true
    if (parsed.kind !== 'record') return false
    return parser.line(state, parsed.rec, offset)
  } catch {
    return false
  }
}

/**
 * Feed one line's text as the engine does (parse once, then the parser): false when the line is
 * malformed and counts as a parse error. A free-text parser gets the text itself.
 */
export function feedLine<S>(parser: LineParser<S>, state: S, text: string, offset: number): boolean {
  return feedParsed(parser, state, parser.lines === 'text' ? BLANK : parseJsonLine(text), text, offset)
}

/**
 * A parser's contributions as the engine records them: the file's count of malformed lines (the
 * engine's, resumed across reads) is the first contribution's `parseErrors` (the file's own session).
 */
export function withParseErrors(list: readonly Contribution[], parseErrors: number): Contribution[] {
  return list.map((c, i) => (i === 0 ? {...c, facts: {...c.facts, parseErrors}} : c))
}
