/**
 * `cast web --tls-cert FILE --tls-key FILE`: the PEM pair read and checked (the key is the
 * certificate's), and followed: when either file changes (a renewal by `tailscale cert`, mkcert
 * or certbot), the new pair is loaded into the running server (https.Server.setSecureContext),
 * so new connections get it without a restart. A new pair that does not load or match keeps the
 * old one serving, and says so in one line.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import tls from 'node:tls'

import {oneLine} from '../../core/model/sanitize.js'
import {CastError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'

export interface TlsFiles {
  readonly cert: string
  readonly key: string
}

export interface TlsPair {
  readonly cert: Buffer
  readonly key: Buffer
  /** The certificate's serial number (hex), for the log line of a reload. */
  readonly serial: string
  /** When the certificate stops being valid (its notAfter). */
  readonly validTo: string
}

/** How often the files are looked at (a stat each; fs.watchFile also follows a file replaced by a rename). */
const POLL_MS = 2000
/** A renewal writes two files: load once both have settled. */
const SETTLE_MS = 1500

/** Read and check the pair; a CastError (one line, exit 2) says what is wrong with which file. */
export function loadPair(files: TlsFiles): TlsPair {
  const cert = readPem(files.cert, '--tls-cert')
  const key = readPem(files.key, '--tls-key')
  let x509: crypto.X509Certificate
  try {
    x509 = new crypto.X509Certificate(cert)
  } catch {
    throw new CastError(`--tls-cert ${shown(files.cert)} holds no PEM certificate.`, EXIT.USAGE)
  }

  let priv: crypto.KeyObject
  try {
    priv = crypto.createPrivateKey(key)
  } catch {
    throw new CastError(`--tls-key ${shown(files.key)} holds no PEM private key (or it is encrypted).`, EXIT.USAGE)
  }

  if (!x509.checkPrivateKey(priv))
    throw new CastError(`--tls-key ${shown(files.key)} is not the key of the certificate in ${shown(files.cert)}.`, EXIT.USAGE)
  try {
    tls.createSecureContext({cert, key})
  } catch (error) {
    throw new CastError(`The TLS pair does not load: ${oneLine((error as Error).message)}`, EXIT.USAGE)
  }

  return {cert, key, serial: x509.serialNumber, validTo: x509.validTo}
}

function readPem(file: string, flag: string): Buffer {
  try {
    return fs.readFileSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable by this user' : `cannot be read (${code})`
    throw new CastError(`${flag} ${shown(file)} ${why}.`, EXIT.USAGE)
  }
}

const shown = (file: string): string => JSON.stringify(oneLine(file))

/**
 * Follow the files: on a change (once both settle), load the pair and hand it to `use`; a pair
 * that fails keeps the old one and `log`s one line per change. Returns the stop function.
 */
export function watchPair(files: TlsFiles, current: TlsPair, use: (pair: TlsPair) => void, log: (line: string) => void): () => void {
  let timer: NodeJS.Timeout | null = null
  let serving = current
  let lastError = ''
  const reload = (): void => {
    timer = null
    let next: TlsPair
    try {
      next = loadPair(files)
    } catch (error) {
      const line = `cast web: the new TLS pair was not loaded, still serving serial ${serving.serial}: ${(error as Error).message}`
      if (line !== lastError) log(line)
      lastError = line
      return
    }

    lastError = ''
    if (next.cert.equals(serving.cert) && next.key.equals(serving.key)) return
    try {
      use(next)
    } catch (error) {
      log(`cast web: the new TLS pair was not loaded, still serving serial ${serving.serial}: ${oneLine((error as Error).message)}`)
      return
    }

    serving = next
    log(`cast web: TLS certificate reloaded (serial ${next.serial}, valid until ${next.validTo}).`)
  }

  const changed = (now: fs.Stats, before: fs.Stats): void => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(reload, SETTLE_MS)
    timer.unref()
  }

  for (const f of [files.cert, files.key]) fs.watchFile(f, {interval: POLL_MS, persistent: false}, changed)
  return () => {
    if (timer) clearTimeout(timer)
    for (const f of [files.cert, files.key]) fs.unwatchFile(f, changed)
  }
}
