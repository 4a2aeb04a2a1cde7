/**
 * A pass's reads, committed in batches: each batch is one store transaction (engine.ts commit),
 * so a crash leaves offsets, facts and the transitions log consistent.
 */
import type {FileRow} from '../store/store.js'
import type {Contribution} from './adapter.js'

/** One contribution as the contributions table stores it: the session it is about and its JSON text. */
export interface ContributionRow {
  readonly nativeId: string
  readonly data: string
}

/** One file's read, waiting for its batch's commit. */
export interface Pending {
  readonly row: FileRow
  /** Stringified where the file was read (the read worker's thread on a shared pass), not in the commit. */
  readonly contributions: readonly ContributionRow[] | null
  readonly deleted?: boolean
  /** The files row this read started from (undefined: a file the store did not know). */
  readonly base?: FileRow
}

/** A read as its batch commits it: each contribution as the row the contributions table stores. */
export function pendingOf(read: {readonly row: FileRow; readonly contributions: readonly Contribution[] | null} | null): Pending | null {
  if (!read) return null
  const contributions = read.contributions ? read.contributions.map((c) => ({data: JSON.stringify(c), nativeId: c.nativeId})) : null
  return {contributions, row: read.row}
}

const BATCH_BYTES = 16 * 1024 * 1024
const BATCH_FILES = 400

/** What a commit adds to the pass's figures. */
interface Counted {
  sessionsChanged: number
  transitions: number
}

/** The pass's pending reads, committed in batches of BATCH_FILES files or BATCH_BYTES bytes. */
export class Batcher {
  private batch: Pending[] = []
  private bytes = 0

  constructor(
    private readonly commit: (batch: readonly Pending[]) => {sessions: number; transitions: number},
    private readonly stats: Counted,
    private readonly progress: () => void,
  ) {}

  add(p: Pending, bytes: number): void {
    this.batch.push(p)
    this.bytes += bytes
    if (p.deleted) return
    if (this.batch.length >= BATCH_FILES || this.bytes >= BATCH_BYTES) {
      this.flush()
      this.progress()
    }
  }

  flush(): void {
    if (this.batch.length === 0) return
    const r = this.commit(this.batch)
    this.stats.sessionsChanged += r.sessions
    this.stats.transitions += r.transitions
    this.batch = []
    this.bytes = 0
  }
}
