/**
 * Preloaded (NODE_OPTIONS=--import) by tests that must know which path a cast command took: at
 * exit, appends to the file CAST_TEST_PROBE names "oclif" (@oclif/core was loaded), "fast" (the
 * fast path, with the store: better-sqlite3 was loaded) or "socket" (neither: `cast state` was
 * answered by the daemon over its socket, src/lib/state/state-socket.ts).
 */
import fs from 'node:fs'
import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)
process.on('exit', () => {
  const file = process.env.CAST_TEST_PROBE
  if (!file) return
  const loaded = Object.keys(require.cache)
  const oclif = loaded.some((k) => k.includes(`${'@oclif'}/core`))
  const store = loaded.some((k) => k.includes('better-sqlite3'))
  fs.appendFileSync(file, oclif ? 'oclif\n' : store ? 'fast\n' : 'socket\n')
})
