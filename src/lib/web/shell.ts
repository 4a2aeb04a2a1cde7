/**
 * The page's shell for src/lib/web/server.ts: index.html, the modules main.js imports and a hash
 * of the page's files (their path under /v/ names the build, so the browser may keep them), and
 * a reply of JSON already serialized (the kept listing, data.ts ListingCache).
 */
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import type http from 'node:http'
import path from 'node:path'

import {SECURITY_HEADERS} from './guard.js'

/** JSON already serialized (the kept listing). */
export function sendRaw(res: http.ServerResponse, text: string): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    'content-type': 'application/json; charset=utf-8',
  })
  res.end(text)
}

export interface Shell {
  readonly html: string
  /** The modules main.js imports (pair.js belongs to the pairing page). */
  readonly modules: readonly string[]
  /** A hash of the page's files: their path under /v/ changes with them. */
  readonly version: string
}

/** index.html, the page's modules and their version, or null when missing. */
export function readShell(assets: string): Shell | null {
  try {
    const html = fs.readFileSync(path.join(assets, 'index.html'), 'utf8')
    const files = fs
      .readdirSync(assets)
      .filter((f) => /\.(js|css|svg)$/.test(f))
      .sort()
    const hash = createHash('sha256')
    for (const f of files) hash.update(`${f}\0`).update(fs.readFileSync(path.join(assets, f)))
    const modules = files.filter((f) => f.endsWith('.js') && f !== 'pair.js' && f !== 'main.js')
    return {html, modules, version: hash.digest('hex').slice(0, 12)}
  } catch {
    return null
  }
}
