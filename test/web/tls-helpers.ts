/**
 * HTTPS under test: a throwaway CA and server certificates made by Debian's openssl CLI in the
 * test's own folder, `cast web` started with a command line that prints an https:// address,
 * Chromium trusting the server keys (--ignore-certificate-errors-spki-list), and node:http(s)
 * requests that verify against the test CA.
 */
import {execFileSync, spawn} from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import path from 'node:path'
import tls from 'node:tls'

import {type Browser, chromium} from 'playwright-core'

import {BIN} from '../helpers/cli.js'
import {CHROMIUM, type WebServer} from './helpers.js'

export interface TestCa {
  readonly dir: string
  /** The CA's certificate (PEM), for clients that verify. */
  readonly pem: Buffer
}

/** A CA of its own in `dir` (EC P-256, a day long). */
export function makeCa(dir: string): TestCa {
  fs.mkdirSync(dir, {recursive: true})
  openssl(
    dir,
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    [
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=cast test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
    ],
  )
  return {dir, pem: fs.readFileSync(path.join(dir, 'ca.pem'))}
}

/** A new server key (PEM) in the CA's folder. */
export function makeKey(ca: TestCa, name: string): string {
  const file = path.join(ca.dir, `${name}.key`)
  openssl(ca.dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', file], [])
  return file
}

/** A server certificate for `key` (127.0.0.1 and localhost) signed by the CA, with this serial (hex). */
export function makeCert(ca: TestCa, key: string, serial: string): Buffer {
  const csr = path.join(ca.dir, `${serial}.csr`)
  const out = path.join(ca.dir, `${serial}.pem`)
  const ext = path.join(ca.dir, 'ext.cnf')
  fs.writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n')
  openssl(ca.dir, ['req', '-new', '-key', key, '-out', csr, '-subj', '/CN=localhost'], [])
  openssl(
    ca.dir,
    ['x509', '-req', '-in', csr, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', `0x${serial}`],
    ['-days', '1', '-out', out, '-extfile', ext],
  )
  return fs.readFileSync(out)
}

function openssl(cwd: string, a: string[], b: string[]): void {
  execFileSync('openssl', [...a, ...b], {cwd, stdio: ['ignore', 'ignore', 'pipe']})
}

/** The base64 SHA-256 of a key's SubjectPublicKeyInfo: what Chromium's SPKI list names. */
export function spkiHash(keyFile: string): string {
  const der = crypto.createPublicKey(fs.readFileSync(keyFile)).export({format: 'der', type: 'spki'})
  return crypto.createHash('sha256').update(der).digest('base64')
}

/** Chromium (headless, fresh profile) that accepts the certificates of these server keys. */
export function chromiumTrusting(keys: readonly string[]): Promise<Browser> {
  return chromium.launch({
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--ignore-certificate-errors-spki-list=${keys.map(spkiHash).join(',')}`,
    ],
    executablePath: CHROMIUM,
  })
}

export interface Started extends WebServer {
  /** Everything it wrote to stdout. */
  stdout(): string
}

/** Start `cast ARGS` and wait for the login address it prints (http or https, any host). */
export function startCast(env: Record<string, string>, args: readonly string[]): Promise<Started> {
  const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  let err = ''
  child.stderr!.on('data', (c) => (err += String(c)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cast printed no address: ${out}\n${err}`)), 30_000)
    child.on('exit', (code) => reject(new Error(`cast exited ${code}: ${out}\n${err}`)))
    child.stdout!.on('data', (c) => {
      out += String(c)
      const m = /(https?:\/\/[^\s/]+)\/login\?token=[\w-]+/.exec(out)
      if (!m) return
      clearTimeout(timer)
      resolve({
        base: m[1]!,
        child,
        login: m[0],
        stderr: () => err,
        stdout: () => out,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done()
            child.once('exit', () => done())
            child.kill('SIGTERM')
          }),
      })
    })
  })
}

export interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** One request to host:port (http, or https verified against `ca`), headers as given (Host included). */
export function request(
  url: string,
  o: {method?: string; headers?: Record<string, string>; body?: string; ca?: Buffer; servername?: string} = {},
): Promise<Reply> {
  const u = new URL(url)
  const lib = u.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const req = lib.request(
      {
        agent: false,
        ca: o.ca,
        headers: o.headers,
        host: u.hostname.replace(/^\[|\]$/g, ''),
        method: o.method ?? 'GET',
        path: u.pathname + u.search,
        port: u.port,
        servername: o.servername,
      },
      (res) => {
        let body = ''
        res.on('data', (c) => (body += String(c)))
        res.on('end', () => resolve({body, headers: res.headers, status: res.statusCode!}))
      },
    )
    req.on('error', reject)
    req.end(o.body)
  })
}

/** The serial number (hex, uppercase) of the certificate a new TLS connection to port gets, verified against the CA. */
export function servedSerial(port: number, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ca, host: '127.0.0.1', port, servername: 'localhost'}, () => {
      const serial = socket.getPeerCertificate().serialNumber
      socket.end()
      resolve(serial.toUpperCase())
    })
    socket.on('error', reject)
  })
}
