/**
 * The tools `cast mcp` offers (docs/mcp.md): each input a strict zod schema (an unknown key, a
 * wrong type or an oversized text is refused before anything runs), each result the JSON the CLI
 * prints with --json (as text, and as structuredContent), each refusal one error result naming
 * the exit code the CLI would exit with.
 */
import {z} from 'zod'

import {DECLARED_STATUSES, WORK_STATES} from '../../core/model/types.js'
import {MAX_MESSAGE_BYTES} from '../agents/message-text.js'
import {MAX_STATE_TEXT} from '../state/state-args.js'
import {MAX_OPTION, MAX_QUESTION, MAX_WHY} from '../client/verbs.js'

/** Longer than any session id or card id (ids are uuids or short random ids). */
const ID = z.string().min(1).max(200)
const STATE = z.enum(WORK_STATES)
/** The longest wait a tool call blocks for: an hour (the agent may call again). */
const MAX_WAIT_S = 3600

export const TOOLS = {
  declare_state: {
    description:
      'Declare YOUR OWN session state (who acts next when this turn ends): working, blocked (a human must act), done (delivered), dormant (a machine wakes you: name the wake). The session is the agent process that started this server; no id is taken.',
    input: z.strictObject({
      status: z.enum(DECLARED_STATUSES),
      text: z.string().max(MAX_STATE_TEXT).describe('What the session is doing or waiting on; first line = headline.'),
    }),
  },
  ask_decision: {
    description:
      'Post a decision card for a person on your own session (it files under Questions): the question, 2 to 9 options, your reasoning. Returns the card; call wait_for_answer with its id to block until answered.',
    input: z.strictObject({
      question: z.string().min(1).max(MAX_QUESTION),
      options: z
        .array(
          z.union([
            z.string().max(MAX_OPTION),
            z.strictObject({label: z.string().min(1).max(200), effect: z.string().max(MAX_OPTION).optional()}),
          ]),
        )
        .min(2)
        .max(9)
        .describe('"LABEL :: cost or effect", or {label, effect}.'),
      reasoning: z.string().max(MAX_WHY),
      recommend: z.number().int().min(1).max(9).optional().describe('The recommended option, 1-based.'),
    }),
  },
  wait_for_answer: {
    description:
      'Block until a person answers the decision card (CLI, TUI, web, phone), with progress notifications; returns the card with answer and answer_label. Times out with the card still open.',
    input: z.strictObject({
      card: ID,
      timeout: z.number().int().min(1).max(MAX_WAIT_S).describe('Seconds to wait at most.'),
    }),
  },
  list_sessions: {
    description: 'The inbox, as `cast sessions --json`: counts and the sessions in display order, optionally only some states or a label.',
    input: z.strictObject({
      states: z.array(STATE).max(5).optional(),
      label: z.string().min(1).max(200).optional(),
    }),
  },
  session: {
    description:
      'One session explained, as `cast explain --json`: facts with their sources, the rule chain, state and reason. An exact id.',
    input: z.strictObject({id: ID}),
  },
  send_to_session: {
    description:
      'Send a message into another session as its next turn (typed into its tmux pane, or resumed headless). An exact id. if_state refuses unless the session is in one of those states now; queue holds it until the current turn ends.',
    input: z.strictObject({
      id: ID,
      text: z.string().min(1).max(MAX_MESSAGE_BYTES),
      if_state: z.array(z.string().max(64)).min(1).max(10).optional().describe('STATE or STATE:REASON, e.g. needs_input:settled.'),
      queue: z.boolean().optional(),
    }),
  },
  schedule: {
    description: 'Schedule a message into a session at a time (ISO 8601); delivered by the daemon when due. An exact id.',
    input: z.strictObject({
      id: ID,
      at: z.string().min(1).max(64).describe('ISO 8601, e.g. 2026-12-07T15:00:00Z.'),
      text: z.string().min(1).max(MAX_MESSAGE_BYTES),
    }),
  },
  wait: {
    description:
      'Block until every named session (or any, with any: true) is in one of the states; met: false when the timeout passes first. Exact ids.',
    input: z.strictObject({
      ids: z.array(ID).min(1).max(50),
      until: z.array(STATE).min(1).max(5),
      any: z.boolean().optional(),
      timeout: z.number().int().min(1).max(MAX_WAIT_S).describe('Seconds to wait at most.'),
    }),
  },
} as const

export type ToolName = keyof typeof TOOLS
export type ToolInput<N extends ToolName> = z.infer<(typeof TOOLS)[N]['input']>
