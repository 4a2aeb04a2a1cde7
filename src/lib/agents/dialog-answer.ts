/**
 * Answering a permission dialog in the agent's own terminal (`cast approve`, `cast deny`), and
 * the checks on text cast types (`cast send`). Which process and pane are the session's, and
 * what dialog is open, are dialog.ts's.
 */
import type {DialogKeys} from '../../adapters/screen.js'
import {shortId} from '../../core/model/ids.js'
import type {Agent} from '../../core/model/types.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import {dialogKeys, findPane, type OpenDialog, paneName, reasonOf, screenDialog, storedDialog} from './dialog.js'
import type {Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {checkMessageText} from './message-text.js'
import {captureScreen, type Pane, type Typist, typist} from './tmux.js'

export type DialogAction = 'approve' | 'approve_always' | 'deny'

export interface DialogAnswer {
  readonly verb: 'approve' | 'deny'
  readonly action: DialogAction
  readonly session_id: string
  readonly short_id: string
  readonly agent: Agent
  /** The route chosen: the agent's own terminal (no agent offers cast a non-terminal way yet). */
  readonly route: 'tmux'
  readonly pane: string
  readonly address: string
  readonly pid: number
  /** What the dialog asked, as the screen showed it. */
  readonly dialog: string
  /** The tmux keys sent, in order (a note as `"text"`). */
  readonly keys: readonly string[]
  readonly note: string | null
  /** The dialog was gone from the screen afterwards. */
  readonly closed: true
  /** How long until the screen showed it closed. */
  readonly closed_after_ms: number
  /** What the store said before (null: only the screen showed the prompt). */
  readonly stored: OpenDialog | null
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** How long the screen may take to show the dialog closed. */
export const CLOSE_TIMEOUT_MS = 5000
/** How long a permission dialog must have been open before keys reach it reliably. */
export const DIALOG_SETTLE_MS = 1500

/** The keys to send for `action`, or why cast cannot answer: a question is open, or the agent declares no such keys. */
function answerKeys(
  row: SessionRow,
  stored: OpenDialog | null,
  action: DialogAction,
  note: string | null,
): {keys: DialogKeys; sequence: readonly string[]} {
  const id = shortId(row.id)
  const verb = action === 'deny' ? 'deny' : 'approve'
  if (stored?.kind === 'question') {
    throw new CastError(
      `Session ${id} has a question open (${stored.text}; from ${stored.source}), not a permission prompt: nothing to ${verb}.`,
      EXIT.REFUSED,
      ['Answer the question in its terminal.'],
    )
  }

  const keys = dialogKeys(row.agent)
  if (keys === null) {
    throw new CastError(
      `cast does not know the keys of ${row.agent}'s permission dialog: answer it in its terminal. Nothing sent.`,
      EXIT.REFUSED,
    )
  }

  const sequence = action === 'approve' ? keys.approve : action === 'approve_always' ? keys.approveAlways : keys.deny
  if (!sequence || sequence.length === 0) {
    throw new CastError(
      `${row.agent}'s permission dialog has no "always allow" key cast knows: use cast approve ${id} without --always, or answer it in its terminal. Nothing sent.`,
      EXIT.REFUSED,
    )
  }

  if (note !== null && (!keys.denyNoteKeys || keys.denyNoteKeys.length === 0)) {
    throw new CastError(
      `${row.agent}'s permission dialog takes no note cast knows how to type: deny without --note, then cast send ${id} the note. Nothing sent.`,
      EXIT.REFUSED,
    )
  }

  return {keys, sequence}
}

/** The permission prompt on the pane's screen now (it must be there), after it has been open DIALOG_SETTLE_MS. */
async function promptOnScreen(env: Env, row: SessionRow, pane: Pane, stored: OpenDialog | null): Promise<OpenDialog> {
  const id = shortId(row.id)
  const before = await captureScreen(pane, env)
  const shown = screenDialog(env, row.agent, pane, before)
  if (shown === null || shown.kind !== 'approval') {
    const state = stored ? ` (the store says one is open, from ${stored.source}, but the screen does not show it)` : ''
    const extra = shown?.kind === 'question' ? ` Its screen shows a question dialog (${shown.text}): answer it in its terminal.` : ''
    throw new CastError(
      `No permission prompt is open on session ${id}'s screen, tmux ${paneName(pane)}${state}. Nothing sent.${extra}`,
      EXIT.REFUSED,
    )
  }

  // A dialog that has only just opened drops or misroutes keys (one agent's TUI, observed: a `1` in
  // its first second did nothing, a `2` moved the cursor): wait until it has been open for
  // DIALOG_SETTLE_MS, then check that it is still there.
  const openedAt = row.facts.approval?.at ?? null
  const age = openedAt === null ? 0 : Date.now() - openedAt
  if (age < DIALOG_SETTLE_MS) {
    await sleep(DIALOG_SETTLE_MS - Math.max(0, age))
    const again = await captureScreen(pane, env)
    if (screenDialog(env, row.agent, pane, again)?.kind !== 'approval') {
      throw new CastError(
        `The permission prompt on session ${id}'s screen, tmux ${paneName(pane)}, closed before cast answered it. Nothing sent.`,
        EXIT.REFUSED,
      )
    }
  }

  return shown
}

/** Type the answer: the agent's keys, or its note keys, the note and Enter. Returns the keys sent. */
async function typeAnswer(t: Typist, keys: DialogKeys, sequence: readonly string[], note: string | null): Promise<string[]> {
  const sent: string[] = []
  if (note !== null) {
    await t.keys(keys.denyNoteKeys!)
    sent.push(...keys.denyNoteKeys!)
    await sleep(150)
    await t.literal(note)
    sent.push(JSON.stringify(note))
    await sleep(150)
    await t.keys(['Enter'])
    sent.push('Enter')
  } else {
    await t.keys(sequence)
    sent.push(...sequence)
  }

  return sent
}

/**
 * Answer the session's open permission prompt in its own terminal with the agent's keys, then
 * check the screen until the dialog is gone. Throws a CastError (exit 5) and sends nothing when
 * no prompt is open, the agent declares no keys, the pane cannot be tied to the session; exit 5
 * too when the dialog did not close.
 */
export async function answerDialog(
  store: Store,
  env: Env,
  row: SessionRow,
  action: DialogAction,
  note: string | null,
): Promise<DialogAnswer> {
  const id = shortId(row.id)
  const verb = action === 'deny' ? 'deny' : 'approve'
  const stored = storedDialog(row)
  const {keys, sequence} = answerKeys(row, stored, action, note)
  const found = await findPane(store, row, env)
  if (found.pane === null) {
    const message = stored
      ? `Session ${id} has a permission prompt open (${stored.text}; from ${stored.source}), but cast cannot answer it: the session ${reasonOf(found, id)}. Nothing sent.`
      : `Session ${id} ${reasonOf(found, id)}, so cast cannot answer it. Nothing sent.`
    throw new CastError(message, EXIT.REFUSED)
  }

  const pane = found.pane
  const shown = await promptOnScreen(env, row, pane, stored)
  const sent = await typeAnswer(typist({pane, pid: found.pid, session: id}, env), keys, sequence, note)
  const t0 = performance.now()
  for (;;) {
    await sleep(150)
    const after = await captureScreen(pane, env)
    const open = after === null ? null : screenDialog(env, row.agent, pane, after)
    if (after !== null && open?.kind !== 'approval') {
      return {
        action,
        address: pane.address,
        agent: row.agent,
        closed: true,
        closed_after_ms: Math.round(performance.now() - t0),
        dialog: shown.text,
        keys: sent,
        note,
        pane: pane.id,
        pid: found.pid,
        route: 'tmux',
        session_id: row.id,
        short_id: id,
        stored,
        verb,
      }
    }

    if (performance.now() - t0 > CLOSE_TIMEOUT_MS) {
      throw new CastError(
        `Sent ${sent.join(' ')} to tmux ${paneName(pane)}, but the permission prompt (${shown.text}) is still on session ${id}'s screen after ${CLOSE_TIMEOUT_MS / 1000}s.`,
        EXIT.REFUSED,
        [`Look at it: tmux ${pane.socket ? `-S ${pane.socket} ` : ''}attach -t ${pane.id}`],
      )
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The verbs' wiring

/** `cast approve` / `cast deny`: sync, resolve, answer; the JSON result and one human line. */
export async function runDialogVerb(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  query: string,
  action: DialogAction,
  note: string | null,
): Promise<{answer: DialogAnswer; line: string}> {
  const {syncBeforeRead} = await import('../ingest/ingest.js')
  const {resolveSession} = await import('../base/resolve.js')
  if (note !== null) note = checkMessageText(note, 'The note')
  syncBeforeRead(store, env, clock, me)
  const id = resolveSession(store, query)
  const row = store.loadSessions([id])[0]
  if (!row) throw new CastError(`Session ${shortId(id)} is not in the store.`, EXIT.NOT_FOUND)
  const answer = await answerDialog(store, env, row, action, note)
  const what = action === 'approve' ? 'Approved' : action === 'approve_always' ? 'Approved (always)' : 'Denied'
  const line = `${what} "${answer.dialog}" in ${answer.short_id} (tmux ${answer.pane}, ${answer.address}; keys ${answer.keys.join(' ')}): the dialog closed after ${answer.closed_after_ms} ms.`
  return {answer, line}
}
