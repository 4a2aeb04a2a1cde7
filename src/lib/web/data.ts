/**
 * What the page of `cast web` renders: the listing `cast sessions --json` prints (built by the
 * same function, src/lib/views/sessions-list.ts listSessions), the tally line, the verb catalog
 * (src/core/model/verbs.ts), and for one session of this machine what its answer view needs
 * (the open ask and the agent's last message, read from this machine's store). A teammate's
 * session carries only its title and ask line: transcripts never leave their machine.
 */
import {formatTally} from '../../core/model/tally.js'
import {verbTable} from '../../core/model/verbs.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {type Env, homeDir} from '../home/env.js'
import {listSessions} from '../views/sessions-list.js'
import {decisionJson, type Listing, type SessionJson, sessionJson} from '../views/views.js'

export type PageListing = Listing & {
  tally: string
  verbs: ReturnType<typeof verbTable>
  seq: number
  home: string
  /** The view: my inbox, or (`cast web --team`) every session of the team, as `cast sessions --team`. */
  team: boolean
  /** Teammates' sessions listed that I may not act on, by id: the line the page shows instead of acting. */
  read_only: Record<string, string>
}

/** The listing of `cast sessions --json` (`--team --json` for the team's view), with the tally line, the catalog and what is read-only. */
export async function pageListing(store: Store, env: Env, clock: () => number, me: string, team = false): Promise<PageListing> {
  const seq = store.lastSeq()
  const ignore = (): void => undefined
  let readOnly: Record<string, string> = {}
  const out = {
    json: true,
    line: ignore,
    readOnly: (lines: Readonly<Record<string, string>>) => (readOnly = {...lines}),
    styled: ignore,
    write: ignore,
  }
  const listing = (await listSessions(store, env, clock, me, team ? {team: true} : {}, out)) as Listing
  return {...listing, home: homeDir(env), read_only: readOnly, seq, tally: formatTally(listing.counts), team, verbs: verbTable()}
}

export interface SessionDetail {
  session: SessionJson
  /** The agent's last message, when this machine's files hold it. */
  last_assistant_text: string | null
  approval: {text: string; at: string} | null
  question: {
    text: string
    at: string
    choices: {label: string; description: string | null}[] | null
    /** Several questions or a multiple choice: every question and its options (answered in the terminal). */
    questions:
      {question: string; header: string | null; multiSelect: boolean; options: {label: string; description: string | null}[]}[] | null
  } | null
  error: {text: string; at: string} | null
  /** The permission dialog as the agent's screen shows it now (the command it asks to run), when it runs in tmux. */
  screen_dialog: string | null
}

/** The answer view's session, or null when this machine's store does not hold it. */
export async function sessionDetail(store: Store, env: Env, id: string, me: string, now: number): Promise<SessionDetail | null> {
  const row = store.loadSessions([id])[0]
  if (!row) return null
  const f = row.facts
  const block = (b: {text: string; at: number} | null) => (b ? {at: new Date(b.at).toISOString(), text: b.text} : null)
  const session = sessionJson(row, me, now)
  return {
    approval: block(f.approval),
    error: block(f.error),
    last_assistant_text: f.lastAssistantText,
    question: f.question
      ? {
          ...block(f.question)!,
          choices: f.question.choices ? [...f.question.choices] : null,
          questions: f.question.questions ? f.question.questions.map((q) => ({...q, options: [...q.options]})) : null,
        }
      : null,
    screen_dialog: f.approval ? await dialogOnScreen(store, env, row) : null,
    session: {...session, decision: row.decision ? decisionJson(row.decision) : null},
  }
}

/** What `cast approve` reads before it answers: the open dialog on the agent's screen (read only). */
async function dialogOnScreen(store: Store, env: Env, row: SessionRow): Promise<string | null> {
  const {findPane, screenDialog} = await import('../agents/dialog.js')
  const {captureScreen} = await import('../agents/tmux.js')
  const found = await findPane(store, row, env).catch(() => null)
  if (!found?.pane) return null
  const d = screenDialog(env, row.agent, found.pane, await captureScreen(found.pane, env))
  return d?.kind === 'approval' ? d.text : null
}
