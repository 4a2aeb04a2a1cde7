/**
 * The options cast keeps of an AskUserQuestion call (src/adapters/claude-code/asks.ts): one
 * single-choice question gives `choices` (cast choose picks one); several questions or a multiple
 * choice give `questions` (shown, answered in the terminal); never both; malformed gives neither.
 */
import {describe, expect, it} from 'vitest'

import {askChoices, askQuestions} from '../../../src/adapters/claude-code/asks.js'

const colour = {
  header: 'Colour',
  multiSelect: false,
  options: [{description: 'warm', label: 'Red'}, {label: 'Blue'}],
  question: 'Which colour?',
}
const sizes = {
  header: 'Sizes',
  multiSelect: true,
  options: [{description: 'for phones', label: 'Small'}, {label: 'Large'}],
  question: 'Which sizes?',
}

describe('AskUserQuestion options', () => {
  it('one single-choice question: choices, no questions', () => {
    const input = {questions: [colour]}
    expect(askChoices('AskUserQuestion', input)).toEqual([
      {description: 'warm', label: 'Red'},
      {description: null, label: 'Blue'},
    ])
    expect(askQuestions('AskUserQuestion', input)).toBeUndefined()
  })

  it('several questions, or one multiple choice: every question, no choices', () => {
    const both = askQuestions('AskUserQuestion', {questions: [colour, sizes]})
    expect(both).toEqual([
      {
        header: 'Colour',
        multiSelect: false,
        options: [
          {description: 'warm', label: 'Red'},
          {description: null, label: 'Blue'},
        ],
        question: 'Which colour?',
      },
      {
        header: 'Sizes',
        multiSelect: true,
        options: [
          {description: 'for phones', label: 'Small'},
          {description: null, label: 'Large'},
        ],
        question: 'Which sizes?',
      },
    ])
    expect(askChoices('AskUserQuestion', {questions: [colour, sizes]})).toBeUndefined()
    expect(askQuestions('AskUserQuestion', {questions: [sizes]})).toHaveLength(1)
    expect(askChoices('AskUserQuestion', {questions: [sizes]})).toBeUndefined()
  })

  it('malformed or another tool: neither', () => {
    expect(askQuestions('AskUserQuestion', {questions: [colour, {...sizes, options: [{description: 'no label'}]}]})).toBeUndefined()
    expect(askQuestions('AskUserQuestion', {questions: [colour, {...sizes, question: ' '}]})).toBeUndefined()
    expect(askQuestions('AskUserQuestion', {questions: []})).toBeUndefined()
    expect(askQuestions('ExitPlanMode', {questions: [colour, sizes]})).toBeUndefined()
    expect(askQuestions('AskUserQuestion', {questions: Array.from({length: 9}, () => colour)})).toBeUndefined()
  })
})
