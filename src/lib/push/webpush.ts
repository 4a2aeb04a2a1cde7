/**
 * Web Push on node:crypto alone: the message encryption of RFC 8291 (the aes128gcm content
 * coding of RFC 8188, one record) and the VAPID authorization of RFC 8292 (an ES256 JWT and the
 * server's public key). The `web-push` package does the same, but sends only over https.request
 * (a loopback RFC 8030 endpoint could not be tested without a TLS hop) and brings asn1.js,
 * http_ece, jws, https-proxy-agent and minimist; Node 20 has every primitive needed: P-256 ECDH,
 * HKDF-SHA-256, AES-128-GCM and ECDSA with the IEEE P1363 signature encoding JWS wants.
 */
import crypto from 'node:crypto'

export interface PushKeys {
  /** The browser's P-256 public key, uncompressed (65 bytes), base64url. */
  readonly p256dh: string
  /** The browser's 16-byte authentication secret, base64url. */
  readonly auth: string
}

export interface VapidKeys {
  /** Uncompressed P-256 public point, base64url (the applicationServerKey the page subscribes with). */
  readonly publicKey: string
  /** The private scalar, base64url (JWK "d"). */
  readonly privateKey: string
}

const b64 = (b: Buffer): string => b.toString('base64url')
const unb64 = (s: string): Buffer => Buffer.from(s, 'base64url')

/** A new VAPID key pair. */
export function newVapidKeys(): VapidKeys {
  const ecdh = crypto.createECDH('prime256v1')
  ecdh.generateKeys()
  return {privateKey: b64(ecdh.getPrivateKey()), publicKey: b64(ecdh.getPublicKey())}
}

function privateKeyObject(keys: VapidKeys): crypto.KeyObject {
  const pub = unb64(keys.publicKey)
  if (pub.length !== 65 || pub[0] !== 4) throw new Error('The VAPID public key is not an uncompressed P-256 point.')
  return crypto.createPrivateKey({
    format: 'jwk',
    key: {crv: 'P-256', d: keys.privateKey, kty: 'EC', x: b64(pub.subarray(1, 33)), y: b64(pub.subarray(33))},
  })
}

/** The Authorization header of RFC 8292 for a push to `endpoint`: `vapid t=JWT, k=KEY`. */
export function vapidAuthorization(endpoint: string, keys: VapidKeys, subject: string, now: number, ttlS = 12 * 3600): string {
  const aud = new URL(endpoint).origin
  const header = b64(Buffer.from(JSON.stringify({alg: 'ES256', typ: 'JWT'})))
  const claims = b64(Buffer.from(JSON.stringify({aud, exp: Math.floor(now / 1000) + ttlS, sub: subject})))
  const input = `${header}.${claims}`
  const sig = crypto.sign('sha256', Buffer.from(input), {dsaEncoding: 'ieee-p1363', key: privateKeyObject(keys)})
  return `vapid t=${input}.${b64(sig)}, k=${keys.publicKey}`
}

/** Record size written in the header (one record: the whole message fits). */
const RS = 4096

/**
 * Encrypt `plaintext` for a subscription (RFC 8291 §3.4): a fresh ECDH key pair and salt per
 * message; the body is salt(16) ‖ rs(4) ‖ idlen(1) ‖ keyid(the sender's public key) ‖ ciphertext.
 * `fixed` pins the ephemeral key and salt (the RFC's test vector), never used in sending.
 */
export function encryptPayload(plaintext: Buffer, keys: PushKeys, fixed?: {senderPrivate: Buffer; salt: Buffer}): Buffer {
  const uaPublic = unb64(keys.p256dh)
  const authSecret = unb64(keys.auth)
  if (uaPublic.length !== 65 || uaPublic[0] !== 4) throw new Error('The subscription key is not an uncompressed P-256 point.')
  if (authSecret.length < 16) throw new Error('The subscription auth secret is shorter than 16 bytes.')
  if (plaintext.length > RS - 17 - 86) throw new Error(`A push payload is at most ${RS - 17 - 86} bytes.`)
  const ecdh = crypto.createECDH('prime256v1')
  if (fixed) ecdh.setPrivateKey(fixed.senderPrivate)
  else ecdh.generateKeys()
  const asPublic = ecdh.getPublicKey()
  const shared = ecdh.computeSecret(uaPublic)
  const salt = fixed?.salt ?? crypto.randomBytes(16)
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic])
  const ikm = Buffer.from(crypto.hkdfSync('sha256', shared, authSecret, keyInfo, 32))
  const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16))
  const nonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12))
  const cipher = crypto.createCipheriv('aes-128-gcm', cek, nonce)
  // 0x02: the last (and only) record's padding delimiter.
  const body = Buffer.concat([cipher.update(Buffer.concat([plaintext, Buffer.from([2])])), cipher.final(), cipher.getAuthTag()])
  const head = Buffer.alloc(21)
  salt.copy(head, 0)
  head.writeUInt32BE(RS, 16)
  head.writeUInt8(asPublic.length, 20)
  return Buffer.concat([head, asPublic, body])
}
