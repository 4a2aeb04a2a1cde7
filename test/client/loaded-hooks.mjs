/** The resolve hook of loaded-probe.mjs: one line per resolved URL. */
import fs from 'node:fs'

let file = null
export function initialize(data) {
  file = data?.file ?? null
}

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  if (file) fs.appendFileSync(file, `${r.url}\n`)
  return r
}
