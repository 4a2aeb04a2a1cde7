/**
 * Preloaded (node --import) by test/client: records every module URL the process resolves in the
 * file CAST_LOADED_PROBE names, so a test can tell which packages a library import pulled in.
 */
import {register} from 'node:module'

register(new URL('./loaded-hooks.mjs', import.meta.url), {data: {file: process.env.CAST_LOADED_PROBE}})
