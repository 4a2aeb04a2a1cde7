/**
 * The listing of `cast web`, built off the server's main thread (src/lib/web/data.ts
 * ListingCache): a build reads and parses every inbox row (0.1 s at 1,000 sessions, seconds at
 * 10,000, all of it synchronous), and on the main thread it held every transition that arrived
 * meanwhile. This thread opens its own connection to the store and runs the same pageListing
 * (`cast sessions --json`'s listSessions); it answers each request with the listing's JSON, the
 * JSON of its head (data.ts listingHead) and its seq.
 */
import {parentPort, workerData} from 'node:worker_threads'

import {Store} from '../../core/store/store.js'
import {castHome, clockFrom, type Env} from '../home/env.js'
import {listingHead, pageListing} from './data.js'

const {env, me, team} = workerData as {env: Env; me: string; team: boolean}
const store = new Store(castHome(env))
const clock = clockFrom(env)

parentPort?.on('message', (id: number) => {
  pageListing(store, env, clock, me, team)
    .then((l) => parentPort?.postMessage({head: JSON.stringify(listingHead(l)), id, json: JSON.stringify(l), seq: l.seq}))
    .catch((error: unknown) => parentPort?.postMessage({error: (error as Error).message, id}))
})
