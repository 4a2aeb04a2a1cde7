/**
 * A push service on loopback for the tests (RFC 8030): it records each push request, decrypts
 * its body as a browser would (RFC 8291 with the subscription's private key, RFC 8188 aes128gcm)
 * and checks its VAPID authorization (RFC 8292: an ES256 JWT over the endpoint's origin, signed
 * by the key in k=). Written apart from src/lib/push so a shared mistake cannot pass both.
 */
import crypto from 'node:crypto'
import http from 'node:http'

export interface Received {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly plaintext: string
  readonly jwt: {
    readonly header: Record<string, unknown>
    readonly claims: Record<string, unknown>
    readonly key: string
    readonly valid: boolean
  }
}

export interface PushService {
  readonly url: string
  readonly received: Received[]
  /** The browser side of a subscription at PATH: its endpoint and keys, as PushSubscription.toJSON() gives them. */
  subscription(path: string): {endpoint: string; keys: {p256dh: string; auth: string}}
  /** Answer the next pushes to PATH with this status (and headers), instead of 201. */
  answer(path: string, status: number, headers?: Record<string, string>): void
  close(): Promise<void>
}

export function decryptAes128gcm(body: Buffer, uaPrivate: Buffer, uaPublic: Buffer, auth: Buffer): string {
  const salt = body.subarray(0, 16)
  const idlen = body[20]!
  const keyid = body.subarray(21, 21 + idlen)
  const ecdh = crypto.createECDH('prime256v1')
  ecdh.setPrivateKey(uaPrivate)
  const secret = ecdh.computeSecret(keyid)
  const hmac = (key: Buffer, data: Buffer): Buffer => crypto.createHmac('sha256', key).update(data).digest()
  // RFC 8291 §3.3-3.4 written out with HMAC (HKDF extract and one expand block).
  const prkKey = hmac(auth, secret)
  const ikm = hmac(prkKey, Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, keyid, Buffer.from([1])]))
  const prk = hmac(salt, ikm)
  const cek = hmac(prk, Buffer.concat([Buffer.from('Content-Encoding: aes128gcm\0'), Buffer.from([1])])).subarray(0, 16)
  const nonce = hmac(prk, Buffer.concat([Buffer.from('Content-Encoding: nonce\0'), Buffer.from([1])])).subarray(0, 12)
  const data = body.subarray(21 + idlen)
  const d = crypto.createDecipheriv('aes-128-gcm', cek, nonce)
  d.setAuthTag(data.subarray(data.length - 16))
  const plain = Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()])
  // Strip the padding: the last record ends with 0x02, then zeros.
  let end = plain.length - 1
  while (end >= 0 && plain[end] === 0) end--
  if (plain[end] !== 2) throw new Error('not the last record (delimiter is not 0x02)')
  return plain.subarray(0, end).toString('utf8')
}

function checkVapid(auth: string, origin: string): Received['jwt'] {
  const m = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(auth)
  if (!m) return {claims: {}, header: {}, key: '', valid: false}
  const [, h, c, s, k] = m
  const header = JSON.parse(Buffer.from(h!, 'base64url').toString()) as Record<string, unknown>
  const claims = JSON.parse(Buffer.from(c!, 'base64url').toString()) as Record<string, unknown>
  const pub = Buffer.from(k!, 'base64url')
  const key = crypto.createPublicKey({
    format: 'jwk',
    key: {crv: 'P-256', kty: 'EC', x: pub.subarray(1, 33).toString('base64url'), y: pub.subarray(33).toString('base64url')},
  })
  const signed = crypto.verify('sha256', Buffer.from(`${h}.${c}`), {dsaEncoding: 'ieee-p1363', key}, Buffer.from(s!, 'base64url'))
  const exp = Number(claims['exp'])
  const valid =
    signed &&
    header['alg'] === 'ES256' &&
    claims['aud'] === origin &&
    typeof claims['sub'] === 'string' &&
    /^(mailto:|https:)/.test(claims['sub']) &&
    exp > Date.now() / 1000 &&
    exp <= Date.now() / 1000 + 24 * 3600
  return {claims, header, key: k!, valid}
}

export async function startPushService(): Promise<PushService> {
  const subs = new Map<string, {priv: Buffer; pub: Buffer; auth: Buffer}>()
  const answers = new Map<string, {status: number; headers: Record<string, string>}>()
  const received: Received[] = []
  let origin = ''
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? '/'
      const sub = subs.get(path)
      const a = answers.get(path)
      if (!sub) {
        res.writeHead(404).end()
        return
      }

      let plaintext = ''
      try {
        plaintext = decryptAes128gcm(Buffer.concat(chunks), sub.priv, sub.pub, sub.auth)
      } catch (error) {
        plaintext = `UNDECRYPTABLE: ${(error as Error).message}`
      }

      received.push({headers: req.headers, jwt: checkVapid(String(req.headers.authorization ?? ''), origin), path, plaintext})
      if (a) res.writeHead(a.status, a.headers).end()
      else res.writeHead(201, {location: `${origin}/message/${received.length}`}).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as {port: number}).port
  origin = `http://127.0.0.1:${port}`
  return {
    answer(path, status, headers = {}) {
      answers.set(path, {headers, status})
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
    received,
    subscription(path) {
      const ecdh = crypto.createECDH('prime256v1')
      ecdh.generateKeys()
      const auth = crypto.randomBytes(16)
      subs.set(path, {auth, priv: ecdh.getPrivateKey(), pub: ecdh.getPublicKey()})
      return {endpoint: `${origin}${path}`, keys: {auth: auth.toString('base64url'), p256dh: ecdh.getPublicKey().toString('base64url')}}
    },
    url: origin,
  }
}
