/**
 * Session identity (docs/contract.md §3.1): cast's stable id, the short id, and prefix resolution.
 * Pure TypeScript: sha256 and base32 are implemented here so the model imports nothing impure.
 */

/** Length of cast's id (130 bits of the hash). */
export const ID_LENGTH = 26
export const SHORT_ID_LENGTH = 7
/** Shorter prefixes never match (an exact id or native id of any length still does). */
export const MIN_PREFIX_LENGTH = 4
const MAX_NEAREST = 5

/** cast's id: lowercase RFC 4648 base32 (no padding) of sha256(`agent:nativeId`), first 26 chars. */
export function castId(agent: string, nativeId: string): string {
  return base32(sha256(new TextEncoder().encode(`${agent}:${nativeId}`))).slice(0, ID_LENGTH)
}

export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH)
}

export interface IdCandidate {
  readonly id: string
  readonly nativeId: string
}

export type PrefixResolution =
  | {readonly kind: 'one'; readonly id: string}
  | {readonly kind: 'none'; readonly nearest: string[]}
  | {readonly kind: 'many'; readonly matches: string[]}

/**
 * Resolve what the user typed to one session. An exact id or native id wins; otherwise a prefix
 * of at least 4 characters of the id (any case) or of the native id that matches exactly one
 * session. Ambiguity is reported, never guessed. `nearest` (ids, best first) feeds "did you mean".
 */
export function resolvePrefix(prefix: string, candidates: readonly IdCandidate[]): PrefixResolution {
  const typed = prefix.trim()
  const lower = typed.toLowerCase()
  if (typed === '') return {kind: 'none', nearest: []}

  const exact = unique(candidates.filter((c) => c.id === lower || c.nativeId === typed).map((c) => c.id))
  if (exact.length === 1 && exact[0] !== undefined) return {id: exact[0], kind: 'one'}
  if (exact.length > 1) return {kind: 'many', matches: exact.sort()}

  if (typed.length >= MIN_PREFIX_LENGTH) {
    const matches = unique(
      candidates
        .filter((c) => c.id.startsWith(lower) || c.nativeId.startsWith(typed) || c.nativeId.toLowerCase().startsWith(lower))
        .map((c) => c.id),
    )
    if (matches.length === 1 && matches[0] !== undefined) return {id: matches[0], kind: 'one'}
    if (matches.length > 1) return {kind: 'many', matches: matches.sort()}
  }

  return {kind: 'none', nearest: nearest(lower, candidates)}
}

/**
 * resolvePrefix, then one more rule: an exact match on one field that is also a prefix of ANOTHER
 * session's other field (one session's native id, another's cast id) is ambiguous when 4 or more
 * characters were typed: an agent names its sessions, so a native id may be made to look like the
 * start of someone else's cast id.
 */
export function resolveTyped(prefix: string, candidates: readonly IdCandidate[]): PrefixResolution {
  const r = resolvePrefix(prefix, candidates)
  if (r.kind !== 'one') return r
  const typed = prefix.trim()
  const lower = typed.toLowerCase()
  const one = candidates.find((c) => c.id === r.id)
  const byNative = one !== undefined && one.nativeId === typed && one.id !== lower
  const byId = one !== undefined && one.id === lower && one.nativeId !== typed
  const others = candidates.filter(
    (c) =>
      c.id !== r.id &&
      ((byNative && c.id.startsWith(lower)) || (byId && (c.nativeId.startsWith(typed) || c.nativeId.toLowerCase().startsWith(lower)))),
  )
  if (typed.length < MIN_PREFIX_LENGTH || others.length === 0) return r
  return {kind: 'many', matches: [...new Set([r.id, ...others.map((c) => c.id)])].sort()}
}

/** Up to 5 ids whose id or native id is closest to what was typed: longest common prefix, then edit distance. */
function nearest(typed: string, candidates: readonly IdCandidate[]): string[] {
  const limit = Math.max(1, Math.floor(typed.length / 3))
  const scored = new Map<string, {common: number; distance: number}>()
  for (const c of candidates) {
    for (const text of [c.id, c.nativeId.toLowerCase()]) {
      const head = text.slice(0, typed.length)
      const score = {common: commonPrefix(typed, text), distance: editDistance(typed, head)}
      if (score.common === 0 && score.distance > limit) continue
      const best = scored.get(c.id)
      if (best === undefined || better(score, best)) scored.set(c.id, score)
    }
  }

  return [...scored.entries()]
    .sort(([idA, a], [idB, b]) => (better(a, b) ? -1 : better(b, a) ? 1 : idA < idB ? -1 : idA > idB ? 1 : 0))
    .slice(0, MAX_NEAREST)
    .map(([id]) => id)
}

function better(a: {common: number; distance: number}, b: {common: number; distance: number}): boolean {
  return a.common > b.common || (a.common === b.common && a.distance < b.distance)
}

function commonPrefix(a: string, b: string): number {
  let n = 0
  while (n < a.length && n < b.length && a[n] === b[n]) n++
  return n
}

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }

    previous = current
  }

  return previous[b.length] ?? 0
}

function unique(values: string[]): string[] {
  return [...new Set(values)]
}

const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

/** RFC 4648 base32, lowercase, no padding. */
export function base32(bytes: Uint8Array): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      bits -= 5
      out += BASE32_ALPHABET[(buffer >>> bits) & 31]
    }

    buffer &= (1 << bits) - 1
  }

  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31]
  return out
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])

/** SHA-256 (FIPS 180-4) of a byte string. */
export function sha256(message: Uint8Array): Uint8Array {
  const bitLength = message.length * 8
  const padded = new Uint8Array(Math.ceil((message.length + 9) / 64) * 64)
  padded.set(message)
  padded[message.length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x1_0000_0000))
  view.setUint32(padded.length - 4, bitLength >>> 0)

  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19])
  const w = new Uint32Array(64)
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(offset + t * 4)
    for (let t = 16; t < 64; t++) {
      const w15 = w[t - 15] ?? 0
      const w2 = w[t - 2] ?? 0
      const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3)
      const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10)
      w[t] = (w[t - 16] ?? 0) + s0 + (w[t - 7] ?? 0) + s1
    }

    let a = h[0] ?? 0
    let b = h[1] ?? 0
    let c = h[2] ?? 0
    let d = h[3] ?? 0
    let e = h[4] ?? 0
    let f = h[5] ?? 0
    let g = h[6] ?? 0
    let hh = h[7] ?? 0
    for (let t = 0; t < 64; t++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
      const ch = (e & f) ^ (~e & g)
      const t1 = (hh + s1 + ch + (K[t] ?? 0) + (w[t] ?? 0)) >>> 0
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
      const maj = (a & b) ^ (a & c) ^ (b & c)
      const t2 = (s0 + maj) >>> 0
      hh = g
      g = f
      f = e
      e = (d + t1) >>> 0
      d = c
      c = b
      b = a
      a = (t1 + t2) >>> 0
    }

    h[0] = (h[0] ?? 0) + a
    h[1] = (h[1] ?? 0) + b
    h[2] = (h[2] ?? 0) + c
    h[3] = (h[3] ?? 0) + d
    h[4] = (h[4] ?? 0) + e
    h[5] = (h[5] ?? 0) + f
    h[6] = (h[6] ?? 0) + g
    h[7] = (h[7] ?? 0) + hh
  }

  const digest = new Uint8Array(32)
  const out = new DataView(digest.buffer)
  for (let i = 0; i < 8; i++) out.setUint32(i * 4, h[i] ?? 0)
  return digest
}

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n))
}
