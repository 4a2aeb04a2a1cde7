/**
 * Start `cast web`'s server for a command (`cast web`, `cast daemon --web`): the addresses it
 * answers to, the refusal of a non-loopback bind with no paired device, the port in use as one
 * line. Returns the server and the one-time login address.
 */
import os from 'node:os'
import {fileURLToPath} from 'node:url'

import type {Config} from '@oclif/core'

import type {Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import {loadConfig} from '../home/config.js'
import {castHome, type Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {listDevices, pairingPending} from '../home/devices.js'
import type {Lifetimes} from './guard.js'
import {WebServer} from './server.js'
import {publicAddress} from './proxy.js'
import {loadPair} from './tls.js'

/** The port `cast web` listens on unless --port says otherwise. */
export const WEB_PORT = 4280

export interface StartOptions {
  readonly store: Store
  readonly env: Env
  readonly clock: () => number
  readonly me: string
  readonly config: Config
  readonly port: number
  readonly listen?: string
  readonly hosts?: readonly string[]
  /** Every session of the team (`cast sessions --team`), teammates' read-only unless I own or run them. */
  readonly team?: boolean
  /** A browser session's idle and absolute lifetimes (guard.ts; default 12 h and 7 days). */
  readonly lifetimes?: Lifetimes
  /** `--tls-cert FILE --tls-key FILE`: serve HTTPS with this PEM pair (reloaded when the files change). */
  readonly tls?: {readonly cert: string; readonly key: string}
  /** `--behind-proxy URL`: the public address a TLS proxy on this machine serves the page at. */
  readonly behindProxy?: string
  /** Where a line about the running server goes (a TLS reload). */
  readonly log?: (line: string) => void
}

export interface Started {
  readonly server: WebServer
  readonly url: string
  readonly loopback: boolean
  readonly shown: string
  readonly port: number
  /** The page's origin as the browser opens it (https://… over TLS or through the proxy). */
  readonly origin: string
}

export async function startWeb(o: StartOptions): Promise<Started> {
  const home = castHome(o.env)
  if (o.tls && o.behindProxy !== undefined)
    throw new CastError('--behind-proxy serves plain HTTP to its proxy: give it --tls-cert/--tls-key or the proxy, not both.', EXIT.USAGE)
  // Read and checked before anything listens: a missing or mismatched file is one line, exit 2.
  const pair = o.tls ? loadPair(o.tls) : undefined
  const proxy = o.behindProxy === undefined ? undefined : publicAddress(o.behindProxy)
  const listen = o.listen ?? '127.0.0.1'
  const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(listen)
  if (!loopback && listDevices(home).length === 0 && !pairingPending(home, Date.now()))
    throw new CastError(`--listen ${listen} serves other devices, and none is paired: run "cast web pair" first.`, EXIT.REFUSED)
  const names = new Set(['127.0.0.1', 'localhost', '::1', listen, ...(o.hosts ?? [])])
  if (listen === '0.0.0.0' || listen === '::')
    for (const addrs of Object.values(os.networkInterfaces())) for (const a of addrs ?? []) names.add(a.address)
  const server = new WebServer({
    assets: fileURLToPath(new URL('../../web', import.meta.url)),
    clock: o.clock,
    config: o.config,
    env: o.env,
    home,
    hostNames: [...names],
    lifetimes: o.lifetimes,
    log: o.log,
    proxy,
    me: o.me,
    recencyMs: (await loadConfig(o.env)).inbox.recencyMs,
    stallMs: stallMs(o.env),
    store: o.store,
    team: o.team === true,
    tls: o.tls && pair ? {files: o.tls, pair} : undefined,
  })
  let port: number
  try {
    port = await server.listen(o.port, listen)
  } catch (error) {
    await server.close().catch(() => undefined)
    const code = (error as NodeJS.ErrnoException).code
    throw new CastError(
      code === 'EADDRINUSE'
        ? `Port ${o.port} is in use (another cast web?): --port N picks another, --port 0 a free one.`
        : `Cannot listen on ${listen}:${o.port}: ${(error as Error).message}`,
      EXIT.FAILURE,
    )
  }

  const shown = loopback || listen === '0.0.0.0' ? '127.0.0.1' : listen.includes(':') ? `[${listen}]` : listen
  // Over TLS the certificate names the page's host: the first --host (a tailnet name) when given.
  const named = pair && o.hosts?.[0] ? o.hosts[0] : shown
  const origin = proxy ? proxy.origin : `${pair ? 'https' : 'http'}://${named}:${port}`
  return {loopback, origin, port, server, shown, url: `${origin}/login?token=${server.guard.token}`}
}

/** CAST_WEB_STALL_MS (100 ms to 10 min): how long a live-stream client may stay backed up (events.ts STALL_MS). */
function stallMs(env: Env): number | undefined {
  const ms = Number(env.CAST_WEB_STALL_MS)
  return Number.isInteger(ms) && ms >= 100 && ms <= 600_000 ? ms : undefined
}
