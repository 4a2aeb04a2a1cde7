/**
 * The package's typed library (package.json "exports"): `import {openInbox} from 'cast-inbox'`.
 * docs/library.md. It reads and writes the same store the CLI does and never loads oclif.
 */
export {CastError, type ExitName} from './errors.js'
export type {WaitForAnswerOptions} from './answer.js'
export type {ExplainFact, ExplainJson} from './explain.js'
export {Inbox, type InboxOptions, openInbox, type SessionsFilter, type SessionsJson, type WaitJson, type WaitOptions} from './inbox.js'
export type {StateJson} from './own.js'
export type {QueuedJson, SendJson} from './verbs.js'
export type {WatchFilter, WatchLineJson, WatchOptions} from './watch.js'
export type {ScheduleJson} from '../agents/deliver.js'
export type {AskJson, DecisionJson, SessionJson} from '../views/json-shapes.js'
export type {WorkState} from '../../core/model/types.js'
