/**
 * The order vitest hands test files to its workers (vitest.config.ts `sequence.sequencer`): the
 * heavy files, which run a live ingester, a long catch-up or many processes at once, never two at
 * the same time, so on a 2-core machine one does not starve the other of CPU (a heartbeat or a
 * watcher's read then goes late for no fault of cast's). The other files fill the other worker,
 * longest first, so the run ends with short files and no worker idles for long.
 *
 * vitest's pool starts files in this order as workers come free, so the order is planned by
 * playing that out with each file's last duration (vitest's results cache) as its estimate: when
 * a worker comes free while another runs a heavy file, it gets the longest light file left.
 * Without a cache (a first run) a file's estimate comes from its size. Failed files still go
 * first within their kind, as in vitest's own order.
 */
import fs from 'node:fs'
import path from 'node:path'
import {BaseSequencer, type TestSpecification} from 'vitest/node'

import {HEAVY_FILES} from './heavy-files.js'

export {HEAVY_FILES} from './heavy-files.js'

export interface Planned<T> {
  readonly item: T
  readonly heavy: boolean
  readonly estimateMs: number
  readonly failed: boolean
}

/**
 * The start order for `workers` workers that take the next file as they come free: a worker that
 * comes free while another runs a heavy file gets the longest light file left; otherwise the
 * longest heavy one. Failed files first within their kind.
 */
export function planOrder<T>(files: readonly Planned<T>[], workers: number): T[] {
  const byPriority = (a: Planned<T>, b: Planned<T>): number => Number(b.failed) - Number(a.failed) || b.estimateMs - a.estimateMs
  const heavy = files.filter((p) => p.heavy).sort(byPriority)
  const light = files.filter((p) => !p.heavy).sort(byPriority)
  const lanes = Array.from({length: Math.max(1, workers)}, () => ({freeAt: 0, heavy: false}))
  const order: T[] = []
  while (heavy.length > 0 || light.length > 0) {
    lanes.sort((a, b) => a.freeAt - b.freeAt)
    const lane = lanes[0]!
    const heavyBusy = lanes.some((l) => l !== lane && l.heavy && l.freeAt > lane.freeAt)
    const next = (heavy.length > 0 && !heavyBusy) || light.length === 0 ? heavy.shift()! : light.shift()!
    lane.freeAt += next.estimateMs
    lane.heavy = next.heavy
    order.push(next.item)
  }

  return order
}

export class HeavyApartSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const {cache, config} = this.ctx
    const planned = files.map((spec): Planned<TestSpecification> => {
      const rel = path.relative(config.root, spec.moduleId).split(path.sep).join('/')
      const key = `${spec.project.name}:${rel}`
      const last = cache.getFileTestResults(key)
      let estimateMs = last?.duration
      if (estimateMs === undefined) {
        // No duration yet: a bigger file has more to run (about 1 s per 2 KB of test, roughly).
        let size = cache.getFileStats(key)?.size
        if (size === undefined) {
          try {
            size = fs.statSync(spec.moduleId).size
          } catch {
            size = 2000
          }
        }

        estimateMs = size / 2
      }

      return {estimateMs, failed: last?.failed === true, heavy: HEAVY_FILES.includes(rel), item: spec}
    })
    return planOrder(planned, Number(config.maxWorkers) || 1)
  }
}
