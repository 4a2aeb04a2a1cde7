/**
 * How many wrong pairing codes `cast web` takes, per source and per code tried: a stranger's
 * wrong codes use up that stranger's attempts, never the owner's. Per source address (an IPv6
 * address by its /64, which one host usually holds whole): ten wrong codes in ten minutes, then
 * that address is refused until the oldest ages out. Per code: the same wrong code is refused
 * after three tries (a typo retried is not a guess). An eight-character code of 31 symbols has
 * 31^8 ≈ 8.5·10^11 values: ten guesses per address per ten minutes never come close.
 */
import {createHash} from 'node:crypto'

export const PAIR_WINDOW_MS = 10 * 60_000
export const PAIR_FAILURES_PER_SOURCE = 10
export const PAIR_FAILURES_PER_CODE = 3
/** Sources remembered at most (a flood of spoofed addresses cannot grow the map without bound). */
const MAX_SOURCES = 10_000

export function sourceKey(address: string): string {
  const a = address.replace(/^::ffff:/i, '').toLowerCase()
  if (!a.includes(':')) return a
  return a.split(':').slice(0, 4).join(':')
}

export class PairLimiter {
  private readonly bySource = new Map<string, number[]>()
  private readonly byCode = new Map<string, number[]>()

  allowed(address: string, code: string, now: number): boolean {
    return (
      recent(this.bySource, sourceKey(address), now).length < PAIR_FAILURES_PER_SOURCE &&
      recent(this.byCode, codeKey(code), now).length < PAIR_FAILURES_PER_CODE
    )
  }

  failed(address: string, code: string, now: number): void {
    push(this.bySource, sourceKey(address), now)
    push(this.byCode, codeKey(code), now)
  }
}

const codeKey = (code: string): string =>
  createHash('sha256')
    .update(code.toUpperCase().replace(/[^0-9A-Z]/g, ''))
    .digest('hex')

function recent(map: Map<string, number[]>, key: string, now: number): number[] {
  const list = (map.get(key) ?? []).filter((t) => now - t < PAIR_WINDOW_MS)
  if (list.length === 0) map.delete(key)
  else map.set(key, list)
  return list
}

function push(map: Map<string, number[]>, key: string, now: number): void {
  if (map.size >= MAX_SOURCES && !map.has(key)) {
    for (const [k, v] of map) if (v.every((t) => now - t >= PAIR_WINDOW_MS)) map.delete(k)
    if (map.size >= MAX_SOURCES) map.delete(map.keys().next().value!)
  }

  map.set(key, [...recent(map, key, now), now])
}
