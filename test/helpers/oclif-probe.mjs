/**
 * Preloaded (NODE_OPTIONS=--import) by tests that must know which path a cast command took: at
 * exit, appends "oclif" or "fast" to the file CAST_TEST_PROBE names (whether @oclif/core was loaded).
 */
import fs from 'node:fs'
import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)
process.on('exit', () => {
  const file = process.env.CAST_TEST_PROBE
  if (!file) return
  const oclif = Object.keys(require.cache).some((k) => k.includes(`${'@oclif'}/core`))
  fs.appendFileSync(file, oclif ? 'oclif\n' : 'fast\n')
})
