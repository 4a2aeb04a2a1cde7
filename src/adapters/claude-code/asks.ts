/**
 * Claude Code's questions to the user in its transcript: an open AskUserQuestion or ExitPlanMode
 * call, its text, and the options a person can pick (docs/agents/claude-code.md), and the cheap
 * test of a file's tail for one (the first answer's tail reads, src/core/ingest/tail-ask.ts).
 */
import type {AskedQuestion, QuestionChoice} from '../../core/model/types.js'
import {isObject, str} from './text.js'
import {ASK_MAX} from './transcript-state.js'

/** The tools whose open call is a question to the user (askText). */
const ASK_TOOLS = ['AskUserQuestion', 'ExitPlanMode']

const ASK_MARKS = ASK_TOOLS.map((name) => Buffer.from(name))

/**
 * Can these last bytes of a transcript end on an open question? Only with a call to an ask tool
 * in them: where the first name of one lies (-1: none).
 */
export function tailAskAt(tail: Buffer): number {
  let at = -1
  for (const mark of ASK_MARKS) {
    const i = tail.indexOf(mark)
    if (i !== -1 && (at === -1 || i < at)) at = i
  }

  return at
}

/** The question an AskUserQuestion / ExitPlanMode call puts to the user. */
export function askText(name: string, input: unknown): string | undefined {
  if (!ASK_TOOLS.includes(name)) return undefined
  const fallback = name === 'ExitPlanMode' ? 'Approve the plan?' : 'Question'
  if (!isObject(input)) return fallback
  const questions = input['questions']
  if (Array.isArray(questions)) {
    const first: unknown = questions[0]
    if (isObject(first) && typeof first['question'] === 'string' && first['question'].trim() !== '') {
      return first['question'].trim().slice(0, ASK_MAX)
    }
  }
  const question = str(input['question'])
  if (question !== null && question.trim() !== '') return question.trim().slice(0, ASK_MAX)
  const plan = str(input['plan'])
  if (plan !== null && plan.trim() !== '') return plan.trim().slice(0, ASK_MAX)
  return fallback
}

/** How many options cast keeps of a question, and how long a label or description may be. */
const MAX_CHOICES = 12
const CHOICE_MAX = 500

/**
 * The options of an AskUserQuestion call (`input.questions[].options[].label/description`,
 * docs/agents/claude-code.md), only when picking one answers it: one question, not multiSelect.
 * Several questions or a multiple choice are answered in the terminal.
 */
export function askChoices(name: string, input: unknown): QuestionChoice[] | undefined {
  if (name !== 'AskUserQuestion' || !isObject(input) || !Array.isArray(input['questions'])) return undefined
  const questions: unknown[] = input['questions']
  const first = questions[0]
  if (questions.length !== 1 || !isObject(first) || first['multiSelect'] === true) return undefined
  return optionsOf(first)
}

/** How many questions of one call cast keeps. */
const MAX_QUESTIONS = 8

/**
 * Every question of an AskUserQuestion call (`input.questions[]`: question, header, multiSelect,
 * options), only when picking one option does not answer it: several questions, or a multiple
 * choice (askChoices covers the rest). Undefined when any question or option is malformed.
 */
export function askQuestions(name: string, input: unknown): AskedQuestion[] | undefined {
  if (name !== 'AskUserQuestion' || !isObject(input) || !Array.isArray(input['questions'])) return undefined
  const questions: unknown[] = input['questions']
  if (questions.length === 0 || questions.length > MAX_QUESTIONS) return undefined
  if (questions.length === 1 && isObject(questions[0]) && questions[0]['multiSelect'] !== true) return undefined
  const out: AskedQuestion[] = []
  for (const q of questions) {
    const text = isObject(q) ? str(q['question']) : null
    const options = isObject(q) ? optionsOf(q) : undefined
    if (!isObject(q) || text === null || text.trim() === '' || options === undefined) return undefined
    const header = str(q['header'])
    out.push({
      header: header === null || header.trim() === '' ? null : header.trim().slice(0, CHOICE_MAX),
      multiSelect: q['multiSelect'] === true,
      options,
      question: text.trim().slice(0, ASK_MAX),
    })
  }
  return out
}

/** A question's `options[]` as labels and descriptions; undefined when one has no label. */
function optionsOf(question: Record<string, unknown>): QuestionChoice[] | undefined {
  if (!Array.isArray(question['options'])) return undefined
  const options: unknown[] = question['options']
  const out: QuestionChoice[] = []
  for (const o of options.slice(0, MAX_CHOICES)) {
    const label = isObject(o) ? str(o['label']) : null
    if (label === null || label.trim() === '') return undefined
    const description = isObject(o) ? str(o['description']) : null
    out.push({
      description: description === null || description.trim() === '' ? null : description.trim().slice(0, CHOICE_MAX),
      label: label.trim().slice(0, CHOICE_MAX),
    })
  }
  return out.length > 0 && out.length === options.length ? out : undefined
}
