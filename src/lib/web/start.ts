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
import {listDevices, pairingPending} from './devices.js'
import {WebServer} from './server.js'

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
}

export interface Started {
  readonly server: WebServer
  readonly url: string
  readonly loopback: boolean
  readonly shown: string
  readonly port: number
}

export async function startWeb(o: StartOptions): Promise<Started> {
  const home = castHome(o.env)
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
    me: o.me,
    recencyMs: (await loadConfig(o.env)).inbox.recencyMs,
    store: o.store,
    team: o.team === true,
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
  return {loopback, port, server, shown, url: `http://${shown}:${port}/login?token=${server.guard.token}`}
}
