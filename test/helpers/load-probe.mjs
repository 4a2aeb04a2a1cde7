/**
 * `node --import <this file> bin/run.js …`: every ES module the process loads is appended, one URL
 * a line, to the file CAST_LOAD_PROBE names (test/lib/lazy-sync.test.ts: which modules a command loads).
 */
import {register} from 'node:module'

register(new URL('load-probe-hooks.mjs', import.meta.url))
