/**
 * `cast` through oclif alone, for tests that compare a fast path of bin/run.js with the command it
 * stands in for: the same entry (the package's bin/run.js as oclif's `dir`, its manifest and
 * commands) without the fast paths bin/run.js takes first. ROOT as test/helpers/cli.ts: CAST_TEST_ROOT, else this checkout.
 *
 *   node test/helpers/oclif-only.mjs state "…"
 */
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = process.env.CAST_TEST_ROOT || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const {execute} = createRequire(path.join(root, 'package.json'))('@oclif/core')
await execute({args: process.argv.slice(2), dir: pathToFileURL(path.join(root, 'bin', 'run.js')).href})
