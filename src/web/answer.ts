/**
 * The answer view (seed 000): full width, anchored on the question. A permission prompt shows
 * the tool and its input, `y` approves and `n` denies; a decision card its options (with their
 * cost) and the agent's reasoning; an open question or anything else the agent's last message
 * and the composer, which types into the agent's terminal through cast send's checks. Enter
 * sends, Ctrl+Enter queues it behind the current turn (cast send --queue), Shift+Enter is a new
 * line, Alt+Enter sends and advances, Alt+Shift+Enter sends and stashes. A teammate's session
 * shows its title and ask line only (its transcript stays on its machine); one I may not act on
 * (`cast web --team`) shows why, and no button, option or composer.
 */
import type {Detail, Outcome, Session} from './api.js'
import {type Child, fill, h, oneLine, visible} from './dom.js'
import {askLine, metaLine, outcomeLine} from './render.js'
import {askMany, type AskedShape, tickAgain, tickedIn} from './ask-many.js'

export interface AnswerHandlers {
  approve(): void
  deny(): void
  decide(choice: number): void
  /** Pick option N of the agent's question (cast choose). */
  choose(choice: number): void
  /** Answer every question of an ask of several (cast choose SESSION A1 A2 …): option numbers per question, and the ask as drawn. */
  answer(answers: number[][], asked: AskedShape): void
  send(text: string, then: 'stay' | 'advance' | 'stash' | 'queue'): void
  close(): void
}

export function renderAnswer(
  root: HTMLElement,
  s: Session,
  detail: Detail | null,
  me: string,
  home: string | null,
  pending: string | undefined,
  outcome: Outcome | undefined,
  /** A teammate's session I may not act on: its title and ask line, why, and nothing to press. */
  readOnly: string | null,
  on: AnswerHandlers,
  /** The listing holds sessions of more than one machine (render.ts manyMachines): say which one runs it. */
  machines = false,
): void {
  const parts: Node[] = [
    h(
      'header',
      {class: 'answer-head'},
      h('button', {'aria-label': 'Back to the inbox (Esc)', class: 'back', onclick: () => on.close(), type: 'button'}, '← Inbox'),
      h('span', {class: `state st-${s.state}`}, `${s.state.replace('_', ' ')}:${s.quiet ? 'quiet' : s.reason}`),
      h('h1', {class: 'answer-title'}, s.title === null ? '(untitled)' : oneLine(s.title, 500)),
    ),
    h('p', {class: 'meta'}, metaLine(s, me, Date.now(), home, machines)),
  ]
  if (s.state_line) parts.push(h('p', {class: 'stateline'}, `${s.state_line.status}: ${visible(s.state_line.text, 4000)}`))
  if (readOnly !== null) parts.push(h('p', {class: 'readonly-line', role: 'note'}, oneLine(readOnly, 300)))
  parts.push(question(s, detail, readOnly === null ? on : null))
  if (pending) parts.push(h('p', {class: 'pending-line', role: 'status'}, `${pending}…`))
  const done = outcomeLine(outcome)
  if (done) parts.push(done)
  if (readOnly === null && !(s.ask?.kind === 'approval' || (s.decision && s.decision.answer === null))) parts.push(composer(on))
  // A redraw of the same session (the stream brought a change) keeps what the person is typing.
  const before = root.dataset['session'] === s.id ? root.querySelector('textarea') : null
  const draft = before?.value ?? ''
  const caret = before?.selectionStart ?? draft.length
  const typing = before !== null && document.activeElement === before
  const ticked = root.dataset['session'] === s.id ? tickedIn(root) : {ask: null, ticks: []}
  const first = root.dataset['session'] !== s.id
  root.dataset['session'] = s.id
  fill(root, ...parts)
  tickAgain(root, ticked)
  const area = root.querySelector('textarea')
  if (area && draft !== '') {
    area.value = draft
    area.setSelectionRange(caret, caret)
  }

  // A question's options take the focus (its digits pick them; an ask of several: its first radio or box) until the person types a reply.
  if (first || typing)
    (
      (draft === '' ? root.querySelector<HTMLElement>('.choice, .pick') : null) ?? root.querySelector<HTMLElement>('textarea, .primary')
    )?.focus()
}

/** An option: a button, or (read-only) its text. */
function pick(on: AnswerHandlers | null, cls: string, run: () => void, ...label: Child[]): Node {
  return on === null ? h('span', {class: `${cls} inert`}, ...label) : h('button', {class: cls, onclick: run, type: 'button'}, ...label)
}

/** The question, anchored; `on` null (read-only): its options as text, no button. */
function question(s: Session, detail: Detail | null, on: AnswerHandlers | null): Node {
  const d = s.decision
  if (d && d.answer === null) {
    return h(
      'section',
      {class: 'ask-box decision'},
      h('h2', {}, visible(d.question, 4000)),
      d.why ? h('p', {class: 'why'}, visible(d.why, 8000)) : null,
      h(
        'ol',
        {class: 'options'},
        ...d.options.map((o) =>
          h(
            'li',
            {},
            pick(
              on,
              `option${d.recommend === o.n ? ' primary' : ''}`,
              () => on?.decide(o.n),
              `${o.n}. ${oneLine(o.label, 200)}`,
              h('span', {class: 'effect'}, ` — ${oneLine(o.effect, 400)}`),
              d.recommend === o.n ? h('span', {class: 'rec'}, ' (recommended)') : null,
            ),
          ),
        ),
      ),
    )
  }

  if (s.ask?.kind === 'approval') {
    const text = detail?.screen_dialog ?? detail?.approval?.text ?? s.ask.text
    return h(
      'section',
      {class: 'ask-box approval'},
      h('h2', {}, s.ask.tool ? `${oneLine(s.ask.tool, 80)} wants to run:` : 'A tool waits on your approval:'),
      h('pre', {class: 'tool-input'}, visible(text)),
      on &&
        h(
          'div',
          {class: 'buttons'},
          h('button', {class: 'primary approve', onclick: () => on.approve(), type: 'button'}, 'Approve (y)'),
          h('button', {class: 'deny', onclick: () => on.deny(), type: 'button'}, 'Deny (n)'),
        ),
    )
  }

  const parts: Node[] = []
  const questions = s.ask?.kind === 'question' ? detail?.question?.questions : null
  // The question is shown once: in full when this machine holds it (each of an ask of several
  // under its own heading), else the ask line of the card.
  if (questions) parts.push(askMany(questions, on))
  else if (detail?.question) parts.push(h('h2', {class: 'ask ask-question question'}, visible(detail.question.text, 8000)))
  else if (s.ask) parts.push(h('h2', {class: `ask ask-${s.ask.kind}`}, askLine(s) ?? ''))
  const choices = s.ask?.kind === 'question' ? detail?.question?.choices : null
  if (choices)
    parts.push(
      h(
        'ol',
        {class: 'options choices'},
        ...choices.map((c, i) =>
          h(
            'li',
            {},
            pick(
              on,
              'option choice',
              () => on?.choose(i + 1),
              `${i + 1}. ${oneLine(c.label, 200)}`,
              c.description ? h('span', {class: 'effect'}, ` — ${oneLine(c.description, 400)}`) : null,
            ),
          ),
        ),
      ),
    )
  if (detail?.error && s.ask?.kind === 'error') parts.push(h('pre', {class: 'error'}, visible(detail.error.text)))
  if (detail === null) parts.push(h('p', {class: 'remote'}, 'Runs on another machine: its conversation stays there.'))
  else if (detail.last_assistant_text)
    parts.push(h('h3', {}, 'The agent said last'), h('pre', {class: 'assistant'}, visible(detail.last_assistant_text)))
  else parts.push(h('p', {class: 'muted'}, 'No message from the agent on record.'))
  return h('section', {class: 'ask-box conversation'}, ...parts)
}

function composer(on: AnswerHandlers): Node {
  const area = h('textarea', {
    'aria-label':
      'Reply: Enter sends, Ctrl+Enter queues it behind the current turn, Alt+Enter sends and advances, Alt+Shift+Enter sends and stashes',
    class: 'composer',
    placeholder:
      'Reply — Enter sends · Ctrl+Enter after this turn · Shift+Enter new line · Alt+Enter send & next · Alt+Shift+Enter send & stash',
    rows: 3,
  })
  area.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || (e.shiftKey && !e.altKey)) return
    e.preventDefault()
    e.stopPropagation()
    const text = area.value
    if (text.trim() === '') return
    on.send(text, e.ctrlKey || e.metaKey ? 'queue' : e.altKey ? (e.shiftKey ? 'stash' : 'advance') : 'stay')
  })
  return h(
    'div',
    {class: 'composer-box'},
    area,
    h(
      'button',
      {
        class: 'send',
        onclick: () => {
          if (area.value.trim() !== '') on.send(area.value, 'stay')
        },
        type: 'button',
      },
      'Send',
    ),
  )
}
