/**
 * The part of a session's facts the listings read (src/lib/views/views.ts sessionJson and its
 * helpers, core/model/view.ts inView), stored beside the facts in `sessions.shown` (migration 10)
 * so that `cast sessions --json --all` parses about a third of each row's facts text: without
 * the settle classifier's inputs (the last assistant text, the prompt, the turn's tools), the
 * counters the classifier alone reads, and the `sources` map but for the sources a pane is read
 * from (kinds screen and scan: views.ts paneOf). upsertFacts (sessions.ts) writes it with the
 * facts; the migration fills it from the facts in SQL (SHOWN_SQL, the same values), and its
 * triggers rewrite it when anything else writes the facts without it.
 */
import type {SessionFacts} from '../model/types.js'

/** Facts keys no listing reads. */
export const UNSHOWN_KEYS = [
  'deliveredToParent',
  'lastAssistantText',
  'lastPromptText',
  'parentNativeId',
  'parseErrors',
  'queued',
  'settled',
  'turnIndex',
  'turnStartedAt',
  'turnTools',
] as const satisfies readonly (keyof SessionFacts)[]

/** What a listing may read of a row's facts. */
export type ShownFacts = Omit<SessionFacts, (typeof UNSHOWN_KEYS)[number]>

/** The source kinds a pane is read from (views.ts paneOf). */
const PANE_KINDS = new Set(['screen', 'scan'])

/** The text stored in `sessions.shown` for these facts. */
export function shownFactsText(facts: SessionFacts): string {
  const shown: Record<string, unknown> = {...facts}
  for (const k of UNSHOWN_KEYS) delete shown[k]
  const sources: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(facts.sources ?? {}))
    if (PANE_KINDS.has((v as {kind?: unknown} | null)?.kind as string)) sources[k] = v
  shown.sources = sources
  return JSON.stringify(shown)
}

/**
 * shownFactsText in SQL, of the row's `facts` column: the same values (the text differs only in key
 * order and spacing); NULL when the facts are not a JSON object (readers then fall back to the facts).
 */
export const SHOWN_SQL = `CASE WHEN json_valid(facts) AND json_type(facts) = 'object' THEN
  json_set(json_remove(facts, ${UNSHOWN_KEYS.map((k) => `'$.${k}'`).join(', ')}, '$.sources'), '$.sources',
  json((SELECT json_group_object(key, json(value)) FROM json_each(facts, '$.sources')
   WHERE CASE WHEN type = 'object' THEN value ->> '$.kind' END IN ('screen', 'scan')))) END`
