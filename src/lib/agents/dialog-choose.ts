/**
 * `cast choose SESSION N`: pick option N of the question the agent asks (a question
 * dialog with a menu of options) in its own terminal, as a person would: the cursor moved to the option
 * with the keys the agent's screen patterns declare, then the select key. Only on evidence: the
 * agent's files list the question's options (the question fact's `choices`), the
 * session's pane is found as `cast approve` finds it, its screen shows a question dialog with
 * option N's label on its line N, and the dialog is gone afterwards. Otherwise exit 5, nothing typed.
 * An ask of several questions, or a multiple choice, is answered by dialog-ask-many.ts.
 */
import {shortId} from '../../core/model/ids.js'
import type {QuestionChoice} from '../../core/model/types.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import {dialogKeys, findPane, paneName, reasonOf, screenDialog} from './dialog.js'
import {CLOSE_TIMEOUT_MS} from './dialog-answer.js'
import type {Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {captureScreen, typist} from './tmux.js'
import type {ChooseManyJson} from './dialog-ask-many.js'

export interface ChooseJson {
  readonly session_id: string
  readonly short_id: string
  readonly question: string
  readonly choice: number
  readonly label: string
  readonly pane: string
  readonly keys: readonly string[]
  readonly closed_after_ms: number
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The menu's lines on the screen: option number → its line, and the one the cursor (❯) is on. */
export function menuOnScreen(screen: string): {lines: Map<number, string>; cursor: number | null} {
  const lines = new Map<number, string>()
  let cursor: number | null = null
  for (const line of screen.split('\n')) {
    const m = /^\s*(❯)?\s*(\d{1,2})\.\s+(.*?)\s*$/.exec(line)
    if (!m) continue
    const n = Number(m[2])
    if (!lines.has(n)) lines.set(n, m[3]!)
    if (m[1] && cursor === null) cursor = n
  }

  return {cursor, lines}
}

/**
 * `cast choose SESSION A1 A2 …`: one answer per question (`2`, or `1,3` for a multiple choice).
 * A single answer of one number on a one-question ask is chooseOption's; an ask of several
 * questions or a multiple choice is dialog-ask-many.ts's.
 */
export async function chooseAnswers(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  query: string,
  answers: readonly (readonly number[])[],
): Promise<ChooseJson | ChooseManyJson> {
  const {syncBeforeRead} = await import('../ingest/ingest.js')
  const {resolveSession} = await import('../base/resolve.js')
  syncBeforeRead(store, env, clock, me)
  const id = resolveSession(store, query)
  const row = store.loadSessions([id])[0]
  if (!row) throw new CastError(`Session ${shortId(id)} is not in the store.`, EXIT.NOT_FOUND)
  const q = row.facts.question
  if (q?.questions) {
    const {chooseMany} = await import('./dialog-ask-many.js')
    return chooseMany(store, env, row, answers)
  }
  if (answers.length !== 1 || answers[0]!.length !== 1) {
    if (q === null) throw new CastError(`No question is open on session ${shortId(id)}. Nothing sent.`, EXIT.REFUSED)
    throw new CastError(`Session ${shortId(id)} asks one question with one answer: give one option number.`, EXIT.USAGE)
  }
  return chooseOption(store, env, row, answers[0]![0]!)
}

/** Option `n` of the one question open on `row` (synced, resolved and loaded by chooseAnswers). */
async function chooseOption(store: Store, env: Env, row: SessionRow, n: number): Promise<ChooseJson> {
  const id = row.id
  const sid = shortId(id)
  const q = row.facts.question
  if (q === null) throw new CastError(`No question is open on session ${sid}. Nothing sent.`, EXIT.REFUSED)
  const choices: readonly QuestionChoice[] | undefined = q.choices
  if (!choices)
    throw new CastError(
      `cast does not know the options of session ${sid}'s question (${q.text}): answer it in its terminal. Nothing sent.`,
      EXIT.REFUSED,
    )
  if (!Number.isInteger(n) || n < 1 || n > choices.length)
    throw new CastError(`The question has ${choices.length} options: choose 1 to ${choices.length}.`, EXIT.USAGE)
  const keys = dialogKeys(row.agent)
  if (!keys?.questionDown || !keys.questionUp || !keys.questionSelect)
    throw new CastError(
      `cast does not know the keys of ${row.agent}'s question dialog: answer it in its terminal. Nothing sent.`,
      EXIT.REFUSED,
    )
  const found = await findPane(store, row, env)
  if (found.pane === null)
    throw new CastError(`Session ${sid} ${reasonOf(found, sid)}, so cast cannot answer its question. Nothing sent.`, EXIT.REFUSED)
  const pane = found.pane
  const screen = await captureScreen(pane, env)
  const shown = screen === null ? null : screenDialog(env, row.agent, pane, screen)
  const label = choices[n - 1]!.label
  const menu = menuOnScreen(screen ?? '')
  if (shown?.kind !== 'question' || menu.cursor === null || !(menu.lines.get(n) ?? '').startsWith(label))
    throw new CastError(
      `Session ${sid}'s screen, tmux ${paneName(pane)}, does not show its question with "${n}. ${label}": nothing sent (answered already, or not the dialog cast read).`,
      EXIT.REFUSED,
    )
  const step = n > menu.cursor ? keys.questionDown : keys.questionUp
  const sequence = [...Array.from({length: Math.abs(n - menu.cursor)}, () => step).flat(), ...keys.questionSelect]
  await typist({pane, pid: found.pid, session: sid}, env).keys(sequence)
  const t0 = performance.now()
  for (;;) {
    await sleep(150)
    const after = await captureScreen(pane, env)
    if (after !== null && screenDialog(env, row.agent, pane, after)?.kind !== 'question')
      return {
        choice: n,
        closed_after_ms: Math.round(performance.now() - t0),
        keys: sequence,
        label,
        pane: pane.id,
        question: q.text,
        session_id: id,
        short_id: sid,
      }
    if (performance.now() - t0 > CLOSE_TIMEOUT_MS)
      throw new CastError(
        `Sent ${sequence.join(' ')} to tmux ${paneName(pane)}, but the question is still on session ${sid}'s screen after ${CLOSE_TIMEOUT_MS / 1000}s.`,
        EXIT.REFUSED,
      )
  }
}
