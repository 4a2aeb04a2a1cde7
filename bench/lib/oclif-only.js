/**
 * The CLI under test run through oclif alone, as bin/run.js ran every command before its fast
 * paths (status, sessions): the "before" of bench/sessions, measured in the same run as the
 * "after". Usage: node bench/lib/oclif-only.js ARGS… (the package: CAST_BENCH_ROOT, else this checkout)
 */
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = path.resolve(process.env.CAST_BENCH_ROOT || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'))
const core = createRequire(path.join(root, 'package.json')).resolve('@oclif/core')
const {execute} = await import(pathToFileURL(core).href)
await execute({args: process.argv.slice(2), dir: pathToFileURL(path.join(root, 'bin', 'run.js')).href})
