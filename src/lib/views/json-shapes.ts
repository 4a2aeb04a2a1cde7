/**
 * The JSON shapes scripts read (docs/contract.md §6.1, README "JSON shapes"): a session object, its ask,
 * its decision card. Types only, declared once in src/core/model/wire.ts (the page reads the same
 * shapes); src/lib/views/views.ts builds them.
 */
export type {AskJson, DecisionJson, SessionJson} from '../../core/model/wire.js'
