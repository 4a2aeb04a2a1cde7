/**
 * `cast choose SESSION A1 A2 …` on an ask of several questions, or a multiple choice: the agent's
 * one dialog of tabs (read by its module's askTabs; the agent notes under docs/agents/, "Screens"),
 * answered as a person would, one key at a time, each only on evidence read from the pane just
 * before it:
 *
 * - the dialog on screen is this ask: its tab bar has one chip per question with the ask's headers,
 *   the tabs before the current one answered and the rest not, and the current tab shows the
 *   expected question with every option of the ask at its number;
 * - the cursor is where cast put it (an option, or a multiple choice's Submit line), and the
 *   boxes of a multiple choice are ticked exactly as cast ticked them;
 * - before the final submit, the review screen lists exactly the chosen answers.
 *
 * Any mismatch: exit 5, one line saying what differed and which keys went out, and no further key.
 */
import type {AskTabsScreen, DialogKeys} from '../../adapters/screen-types.js'
import {registry} from '../../adapters/index.js'
import {shortId} from '../../core/model/ids.js'
import type {AskedQuestion} from '../../core/model/types.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'
import type {Env} from '../home/env.js'
import {CLOSE_TIMEOUT_MS, DIALOG_SETTLE_MS} from './dialog-answer.js'
import {dialogKeys, findPane, paneName, reasonOf, screenDialog} from './dialog.js'
import {captureScreen, type Pane, typist} from './tmux.js'

export interface ChooseManyJson {
  readonly session_id: string
  readonly short_id: string
  /** Each question with the chosen options' numbers (1 is the first) and labels. */
  readonly answers: readonly {readonly question: string; readonly choices: readonly number[]; readonly labels: readonly string[]}[]
  readonly pane: string
  readonly keys: readonly string[]
  readonly closed_after_ms: number
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** How long the screen may take to show what one key did. */
const STEP_TIMEOUT_MS = 3000

/** Agent text in a refusal line: cut short (the line is sanitized where it is printed). */
const cut = (t: string): string => {
  const line = t.replace(/\r?\n/g, '\\n')
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

/** An option's label as drawn matches the ask's: equal, or cut short with an ellipsis. */
function sameLabel(drawn: string, label: string): boolean {
  if (drawn === label) return true
  return drawn.length > 1 && drawn.endsWith('…') && label.startsWith(drawn.slice(0, -1).trimEnd())
}

/** Check the answers given against the ask: one option per single-choice question, one or more per multiple choice. */
export function checkAnswers(questions: readonly AskedQuestion[], answers: readonly (readonly number[])[]): void {
  if (answers.length !== questions.length)
    throw new CastError(
      `The ask has ${questions.length} question${questions.length === 1 ? '' : 's'}: give one answer for each, in order (${answers.length} given).`,
      EXIT.USAGE,
    )
  for (const [i, q] of questions.entries()) {
    const a = answers[i]!
    const n = q.options.length
    if (!q.multiSelect && a.length !== 1)
      throw new CastError(`Question ${i + 1} takes one option (1 to ${n}); "${a.join(',')}" names ${a.length}.`, EXIT.USAGE)
    if (new Set(a).size !== a.length) throw new CastError(`Question ${i + 1}: an option is named twice.`, EXIT.USAGE)
    for (const c of a) if (c < 1 || c > n) throw new CastError(`Question ${i + 1} has ${n} options: choose 1 to ${n}.`, EXIT.USAGE)
  }
}

export async function chooseMany(
  store: Store,
  env: Env,
  row: SessionRow,
  answers: readonly (readonly number[])[],
): Promise<ChooseManyJson> {
  const sid = shortId(row.id)
  const q = row.facts.question!
  const questions = q.questions!
  checkAnswers(questions, answers)
  const keys = dialogKeys(row.agent)
  const reader = registry().byId(row.agent)?.askTabs
  if (!reader || !keys?.questionDown || !keys.questionUp || !keys.questionSelect)
    throw new CastError(
      `cast does not know how ${row.agent} draws an ask of several questions: answer it in its terminal. Nothing sent.`,
      EXIT.REFUSED,
    )
  const found = await findPane(store, row, env)
  if (found.pane === null)
    throw new CastError(`Session ${sid} ${reasonOf(found, sid)}, so cast cannot answer its question. Nothing sent.`, EXIT.REFUSED)
  const pane = found.pane
  const t = typist({pane, pid: found.pid, session: sid}, env)
  const sent: string[] = []
  const stop = (what: string): never => {
    const done = sent.length === 0 ? 'nothing sent' : `stopped after ${sent.join(' ')}`
    throw new CastError(`Session ${sid}'s screen, tmux ${paneName(pane)}, ${what}: ${done}.`, EXIT.REFUSED)
  }

  const age = Date.now() - q.at
  if (age < DIALOG_SETTLE_MS) await sleep(DIALOG_SETTLE_MS - Math.max(0, age))
  const d = new Driver(env, pane, reader, questions, stop)
  const press = async (k: readonly string[]): Promise<void> => {
    await t.keys(k)
    sent.push(...k)
  }

  for (const [i, question] of questions.entries()) {
    await answerTab(d, press, keys, i, question, answers[i]!, stop)
    // The next tab, or the review screen after the last one.
    if (i + 1 < questions.length)
      await d.until((s) => (d.tab(s, i + 1, new Set()) === null ? null : true), `did not move on to question ${i + 2}`)
    else await d.until((s) => (reader.review(s) === null ? null : true), 'did not show the review of the answers')
  }

  const labels = questions.map((x, i) => answers[i]!.map((c) => x.options[c - 1]!.label))
  await d.until((screen) => {
    const review = reader.review(screen)
    const same =
      review !== null &&
      review.answers.length === questions.length &&
      review.answers.every((r, i) => r.question === questions[i]!.question.trim() && reader.sameAnswer(r.answer, labels[i]!))
    return same && review.onSubmit ? true : stop('does not review exactly the chosen answers')
  }, 'does not review exactly the chosen answers')
  await press(keys.questionSelect)
  const t0 = performance.now()
  for (;;) {
    await sleep(150)
    const s = await captureScreen(pane, env)
    if (s !== null && reader.review(s) === null && reader.tabs(s) === null && screenDialog(env, row.agent, pane, s)?.kind !== 'question')
      break
    if (performance.now() - t0 > CLOSE_TIMEOUT_MS)
      stop(`still shows the dialog ${CLOSE_TIMEOUT_MS / 1000}s after the answers were submitted`)
  }
  return {
    answers: questions.map((x, i) => ({choices: answers[i]!, labels: labels[i]!, question: x.question})),
    closed_after_ms: Math.round(performance.now() - t0),
    keys: sent,
    pane: pane.id,
    session_id: row.id,
    short_id: sid,
  }
}

/**
 * Answer tab `i`: move the cursor to the option and pick it, or tick each chosen box of a multiple
 * choice (checking it shows ticked) and pick its Submit line. Each key only after the screen read
 * since the last one showed this tab with the cursor where cast put it.
 */
async function answerTab(
  d: Driver,
  press: (k: readonly string[]) => Promise<void>,
  keys: DialogKeys,
  i: number,
  question: AskedQuestion,
  want: readonly number[],
  stop: (what: string) => never,
): Promise<void> {
  const ticked = new Set<number>()
  let at = await d.until((s) => d.tab(s, i, ticked), `does not show question ${i + 1}`, 0)
  const moveTo = async (target: number | 'submit'): Promise<void> => {
    for (let guard = 0; at !== target; guard++) {
      if (guard > question.options.length + 3) stop(`never put the cursor on ${target === 'submit' ? 'Submit' : `option ${target}`}`)
      const down = target === 'submit' || (typeof at === 'number' && at < target)
      await press(down ? keys.questionDown! : keys.questionUp!)
      const before = at
      at = await d.until(
        (s) => {
          const c = d.tab(s, i, ticked)
          return c !== before ? c : null
        },
        `did not move the cursor from ${before === 'submit' ? 'Submit' : `option ${before}`}`,
      )
    }
  }

  if (!question.multiSelect) {
    await moveTo(want[0]!)
    await press(keys.questionSelect!)
    return
  }
  for (const c of [...want].sort((x, y) => x - y)) {
    await moveTo(c)
    await press(keys.questionSelect!)
    ticked.add(c)
    await d.until((s) => (d.tab(s, i, ticked) === c ? true : null), `did not tick option ${c}`)
  }
  await moveTo('submit')
  await press(keys.questionSelect!)
}

/** Reads the pane and checks it against the ask; `stop` ends the answer with exit 5. */
class Driver {
  constructor(
    private readonly env: Env,
    private readonly pane: Pane,
    private readonly reader: AskTabsScreen,
    private readonly questions: readonly AskedQuestion[],
    private readonly stop: (what: string) => never,
  ) {}

  async screen(): Promise<string> {
    return (await captureScreen(this.pane, this.env)) ?? this.stop('could not be read')
  }

  /**
   * The cursor on tab `i`, after checking that the screen shows this ask on that tab with its
   * boxes ticked as `ticked` says.
   */
  tab(screen: string, i: number, ticked: ReadonlySet<number>): number | 'submit' {
    const q = this.questions[i]!
    const tabs = this.reader.tabs(screen)
    if (tabs === null || tabs.length !== this.questions.length) return this.fail(`does not show the ask's ${this.questions.length} tabs`)
    for (const [j, tab] of tabs.entries()) {
      const header = this.questions[j]!.header
      if (header !== null && !sameLabel(tab.header, header))
        return this.fail(`shows a tab "${cut(tab.header)}" where the ask has "${cut(header)}"`)
      // The current tab's chip may turn answered once a box is ticked; before that it is not.
      if ((j !== i || ticked.size === 0) && tab.answered !== j < i)
        return this.fail(`shows question ${j + 1} ${tab.answered ? 'answered' : 'unanswered'} (answered in the terminal meanwhile?)`)
    }
    const menu = this.reader.menu(screen, q.question)
    if (menu === null) return this.fail(`does not show question ${i + 1} (${cut(q.question)})`)
    for (const [k, o] of q.options.entries()) {
      const drawn = menu.options.get(k + 1)
      if (drawn === undefined || !sameLabel(drawn.label, o.label))
        return this.fail(`does not show "${k + 1}. ${cut(o.label)}" on question ${i + 1}`)
      if (q.multiSelect && drawn.ticked !== ticked.has(k + 1)) {
        return this.fail(`shows option ${k + 1} of question ${i + 1} ${drawn.ticked ? 'ticked' : 'not ticked'}`)
      }
    }
    return menu.cursor ?? this.fail(`shows no cursor on question ${i + 1}`)
  }

  /**
   * Read the screen until `check` returns a value (no key is sent meanwhile). A screen that does
   * not match (a redraw caught half-way, a tick not drawn yet) is read again; after
   * STEP_TIMEOUT_MS the last mismatch, or `what`, ends the answer.
   */
  async until<T>(check: (screen: string) => T | null, what: string, wait = 100): Promise<T> {
    const t0 = performance.now()
    let last: Error | null = null
    for (;;) {
      if (wait > 0) await sleep(wait)
      wait = 100
      try {
        const v = check(await this.screen())
        if (v !== null) return v
        last = null
      } catch (error) {
        last = error as Error
      }
      if (performance.now() - t0 > STEP_TIMEOUT_MS) {
        if (last !== null) throw last
        return this.stop(what)
      }
    }
  }

  private fail(what: string): never {
    return this.stop(what)
  }
}
