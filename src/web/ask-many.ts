/**
 * Several questions, or a multiple choice (one AskUserQuestion the agent draws as a dialog of
 * tabs: the agent notes under docs/agents/, "Screens"): each question with its options, a radio
 * per option of a single choice and a box per option of a multiple choice, and one Send that
 * answers them all through cast choose (it reads the agent's screen before each key and stops
 * when the dialog differs). Read-only (`on` null): the options as text, nothing to pick.
 * Agent text (questions, headers, labels) is set as text only (dom.ts).
 */
import type {Detail} from './api.js'
import {h, oneLine, visible} from './dom.js'

type Asked = NonNullable<NonNullable<Detail['question']>['questions']>

/** The ask as the page drew it (each question and its options' labels): the server refuses the answers when the ask changed since. */
export type AskedShape = {question: string; options: string[]}[]

/** The picks of every question (numbers from 1, in order), or null while one has none. */
function picks(root: HTMLElement, questions: Asked): number[][] | null {
  const out = questions.map((_, i) =>
    [...root.querySelectorAll<HTMLInputElement>(`input[name="q${i}"]:checked`)].map((x) => Number(x.value)),
  )
  return out.every((a) => a.length > 0) ? out : null
}

export function askMany(questions: Asked, on: {answer(answers: number[][], asked: AskedShape): void} | null): HTMLElement {
  const n = questions.length
  const asked: AskedShape = questions.map((q) => ({options: q.options.map((o) => o.label), question: q.question}))
  const send = on && h('button', {class: 'primary send-answers', disabled: true, type: 'button'}, 'Send answers')
  const root = h(
    'div',
    {class: 'questions', 'data-ask': JSON.stringify(asked)},
    h(
      'p',
      {class: on ? 'hint' : 'in-terminal'},
      on
        ? `Pick ${n > 1 ? 'an answer for each question' : 'your answers'}, then Send: cast types them into the agent's dialog, checking its screen before each key, and stops if it changed.`
        : `Answer ${n > 1 ? 'these questions' : 'this question'} in the agent's terminal: the page shows them but does not pick for you.`,
    ),
    ...questions.map((q, i) =>
      h(
        'section',
        {class: 'asked'},
        h('h3', {}, `${i + 1}/${n}${q.header ? ` · ${oneLine(q.header, 60)}` : ''}${q.multiSelect ? ' · pick any' : ' · pick one'}`),
        h('pre', {class: 'question'}, visible(q.question)),
        h(
          'ul',
          {class: on ? 'options' : 'options read-only'},
          ...q.options.map((o, k) => {
            const text = [`${k + 1}. `, on || !q.multiSelect ? '' : '☐ ', oneLine(o.label, 200)].join('')
            const effect = o.description ? h('span', {class: 'effect'}, ` — ${oneLine(o.description, 400)}`) : null
            if (!on) return h('li', {class: 'option-text'}, text, effect)
            const input = h('input', {class: 'pick', name: `q${i}`, type: q.multiSelect ? 'checkbox' : 'radio', value: String(k + 1)})
            return h('li', {}, h('label', {class: 'option pick-option'}, input, ` ${text}`, effect))
          }),
        ),
      ),
    ),
    send,
  )
  if (on && send) {
    root.addEventListener('change', () => (send.disabled = picks(root, questions) === null))
    send.addEventListener('click', () => {
      const a = picks(root, questions)
      if (a) on.answer(a, asked)
    })
  }
  return root
}

/** The boxes and radios ticked in `root`, with the ask they answer (to keep them across a redraw of the same ask). */
export function tickedIn(root: HTMLElement): {ask: string | null; ticks: string[]} {
  const ask = root.querySelector('.questions')?.getAttribute('data-ask') ?? null
  return {ask, ticks: [...root.querySelectorAll<HTMLInputElement>('.questions input:checked')].map((x) => `${x.name}=${x.value}`)}
}

/** Tick them again after a redraw, only when it shows the same ask (a new ask starts blank). */
export function tickAgain(root: HTMLElement, before: {ask: string | null; ticks: readonly string[]}): void {
  if (before.ask === null || root.querySelector('.questions')?.getAttribute('data-ask') !== before.ask) return
  const ticked = before.ticks
  for (const input of root.querySelectorAll<HTMLInputElement>('.questions input'))
    if (ticked.includes(`${input.name}=${input.value}`)) input.checked = true
  const send = root.querySelector<HTMLButtonElement>('.send-answers')
  if (send && ticked.length > 0) root.querySelector('.questions')?.dispatchEvent(new Event('change', {bubbles: true}))
}
