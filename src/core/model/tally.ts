/**
 * The tally line and the `counts` object of `cast sessions --json` (docs/contract.md §3.8, §6.1). Pure.
 */
import {exhaustive} from './exhaustive.js'
import type {Bucket, WorkState} from './types.js'

export interface TallyRow {
  readonly state: WorkState
  readonly bucket: Bucket
  readonly pinned: boolean
  /** A live agent process runs it. */
  readonly live: boolean
  readonly quiet: boolean
}

export interface Counts {
  readonly needs_input: number
  readonly done: number
  readonly working: number
  readonly dormant: number
  readonly idle: number
  readonly questions: number
  readonly new: number
  readonly pinned: number
  readonly live: number
  /** Stashed rows, hidden ones included. */
  readonly stashed: number
  readonly dismissed: number
  readonly killed: number
  readonly folded: number
  readonly snoozed: number
  /** Working rows silent for the quiet threshold (counted in working too). */
  readonly quiet: number
}

/** Buckets set aside by a filing (true): their rows do not count toward the work-state figures. Every bucket says. */
const FILED_BUCKETS: Readonly<Record<Bucket, boolean>> = {
  dismissed: true,
  hidden: true,
  killed: true,
  snoozed: true,
  stashed: true,
  done: false,
  dormant: false,
  folded: false,
  idle: false,
  needs_input: false,
  new: false,
  pinned: false,
  questions: false,
  working: false,
}

export function isFiledBucket(bucket: Bucket): boolean {
  return FILED_BUCKETS[bucket] === true
}

/**
 * Counts over the rows of my inbox. The five work-state figures count the state underneath every
 * row that is neither filed nor folded (a pinned or asking row keeps its state). pinned and live
 * count every row that is not folded.
 */
export function tally(rows: readonly TallyRow[]): Counts {
  const counts = {
    needs_input: 0,
    done: 0,
    working: 0,
    dormant: 0,
    idle: 0,
    questions: 0,
    new: 0,
    pinned: 0,
    live: 0,
    stashed: 0,
    dismissed: 0,
    killed: 0,
    folded: 0,
    snoozed: 0,
    quiet: 0,
  }

  for (const row of rows) {
    const {bucket} = row
    if (bucket === 'folded') {
      counts.folded++
      continue
    }

    if (row.pinned) counts.pinned++
    if (row.live) counts.live++
    switch (bucket) {
      case 'dismissed': {
        counts.dismissed++
        continue
      }

      case 'hidden':
      case 'stashed': {
        counts.stashed++
        continue
      }

      case 'killed': {
        counts.killed++
        continue
      }

      case 'snoozed': {
        counts.snoozed++
        continue
      }

      case 'questions': {
        counts.questions++
        break
      }

      case 'new': {
        counts.new++
        break
      }

      case 'pinned':
      case 'needs_input':
      case 'done':
      case 'working':
      case 'dormant':
      case 'idle': {
        break
      }

      default: {
        exhaustive(bucket)
      }
    }

    counts[row.state]++
    if (row.quiet) counts.quiet++
  }

  return counts
}

/** `needs input N · done N · working N · dormant N · idle N   (pinned N, live N, stashed N, dismissed N, killed N, folded N)` */
export function formatTally(counts: Counts): string {
  const states = `needs input ${counts.needs_input} · done ${counts.done} · working ${counts.working} · dormant ${counts.dormant} · idle ${counts.idle}`
  const aside = `pinned ${counts.pinned}, live ${counts.live}, stashed ${counts.stashed}, dismissed ${counts.dismissed}, killed ${counts.killed}, folded ${counts.folded}`
  return `${states}   (${aside})`
}
