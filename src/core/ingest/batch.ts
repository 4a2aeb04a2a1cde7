/**
 * A pass's reads, committed in batches: each batch is one store transaction (engine.ts commit),
 * so a crash leaves offsets, facts and the transitions log consistent.
 */
import type {FileRow} from '../store/store.js'
import type {Contribution} from './adapter.js'

/** One file's read, waiting for its batch's commit. */
export interface Pending {
  readonly row: FileRow
  readonly contributions: readonly Contribution[] | null
  readonly deleted?: boolean
  /** The files row this read started from (undefined: a file the store did not know). */
  readonly base?: FileRow
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
