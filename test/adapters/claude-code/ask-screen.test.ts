/**
 * Claude Code's dialog for an ask of several questions, read from screens 2.1.328 drew in tmux
 * (test/conformance/claude_code_choose_many.test.ts), and screens an agent's text could forge.
 */
import {describe, expect, it} from 'vitest'

import {claudeAskTabs as r} from '../../../src/adapters/claude-code/ask-screen.js'
import {checkAnswers} from '../../../src/lib/agents/dialog-ask-many.js'

const SIZES = `❯ ask me something
────────────────────────────────────────
←  ☒ Colour  ☐ Sizes  ✔ Submit  →
Which sizes should it come in?
❯ 1. [ ] Small
         for phones
  2. [✔] Large
         for desks
  3. [ ] Huge
         for walls
  4. [ ] Type something
     Submit
────────────────────────────────────────
  5. Chat about this
Enter to select · Tab/Arrow keys to navigate · Esc to cancel
`

const REVIEW = `←  ☒ Colour  ☒ Sizes  ✔ Submit  →
Review your answers
 ● Which colour should the button be?
   → Blue
 ● Which sizes should it come in?
   → Small, "<img src=x onerror=\\"window.__xss=1\\">Huge"
❯ 1. Submit answers
  2. Cancel
`

describe("Claude Code's tabbed ask dialog", () => {
  it('reads the tabs, the current tab’s options with their boxes, and the cursor', () => {
    expect(r.tabs(SIZES)).toEqual([
      {answered: true, header: 'Colour'},
      {answered: false, header: 'Sizes'},
    ])
    const menu = r.menu(SIZES, 'Which sizes should it come in?')!
    expect(menu.cursor).toBe(1)
    expect([...menu.options.entries()].slice(0, 3)).toEqual([
      [1, {label: 'Small', ticked: false}],
      [2, {label: 'Large', ticked: true}],
      [3, {label: 'Huge', ticked: false}],
    ])
    expect(r.menu(SIZES.replace('❯ 1.', '  1.').replace('     Submit', '   ❯ Submit'), 'Which sizes should it come in?')!.cursor).toBe(
      'submit',
    )
    // Another question than the one expected: not this tab.
    expect(r.menu(SIZES, 'Which colour should the button be?')).toBeNull()
    expect(r.review(SIZES)).toBeNull()
  })

  it('refuses a menu where a description forges an option number', () => {
    expect(r.menu(SIZES.replace('for desks', '3. Huge'), 'Which sizes should it come in?')).toBeNull()
  })

  it('reads the review and matches answers, a JSON-quoted label included, exactly', () => {
    const review = r.review(REVIEW)!
    expect(review.onSubmit).toBe(true)
    expect(review.answers.map((a) => a.question)).toEqual(['Which colour should the button be?', 'Which sizes should it come in?'])
    const hostile = '<img src=x onerror="window.__xss=1">Huge'
    expect(r.sameAnswer(review.answers[0]!.answer, ['Blue'])).toBe(true)
    expect(r.sameAnswer(review.answers[1]!.answer, ['Small', hostile])).toBe(true)
    expect(r.sameAnswer(review.answers[1]!.answer, ['Small'])).toBe(false)
    expect(r.sameAnswer(review.answers[1]!.answer, [hostile, 'Small'])).toBe(false)
    expect(r.sameAnswer('Small, Huge', ['Small', 'Huge'])).toBe(true)
    expect(r.sameAnswer('Small, Huge', ['Small, Huge'])).toBe(true)
    expect(r.review(REVIEW.replace('❯ 1. Submit answers', '  1. Submit answers').replace('  2. Cancel', '❯ 2. Cancel'))!.onSubmit).toBe(
      false,
    )
  })
})

describe('cast choose: answers against the ask', () => {
  const q = (multiSelect: boolean) => ({
    header: null,
    multiSelect,
    options: [1, 2, 3].map((n) => ({description: null, label: `o${n}`})),
    question: 'q?',
  })
  it('takes one option per single choice, one or more per multiple choice, each in range', () => {
    expect(() => checkAnswers([q(false), q(true)], [[2], [1, 3]])).not.toThrow()
    expect(() => checkAnswers([q(false), q(true)], [[2]])).toThrow(/The ask has 2 questions/)
    expect(() => checkAnswers([q(false), q(true)], [[1, 2], [1]])).toThrow(/Question 1 takes one option/)
    expect(() => checkAnswers([q(false), q(true)], [[1], [1, 1]])).toThrow(/named twice/)
    expect(() => checkAnswers([q(false), q(true)], [[1], [4]])).toThrow(/Question 2 has 3 options/)
  })
})
