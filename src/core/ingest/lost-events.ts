/**
 * When the watcher's events may have been lost, the live ingester rescans everything they could
 * have named (a full pass over the roots and a folder sweep), as watchman does on IN_Q_OVERFLOW.
 *
 * Node never reports an inotify overflow: the kernel queues IN_Q_OVERFLOW with wd -1, and libuv's
 * uv__inotify_read (src/unix/linux.c) drops every event whose wd names no watcher; chokidar 4 sees
 * nothing (its 'error' is for fs.watch failures such as ENOSPC). So the loss is inferred from what
 * fills the kernel's queue (/proc/sys/fs/inotify/max_queued_events events, 16,384 by default):
 * - the event loop stalled (the daemon stopped or starved, or a long pass): nothing read the queue;
 * - a burst of raw watcher events near the queue's size within one tick;
 * - a watcher error (a folder left unwatched);
 * - a folder listing bigger than the new-folder rescan reads (live-watch.ts NewDirs).
 * Rescans are coalesced: one at once, then at most one per RESCAN_GAP_MS (a request in between
 * runs at the end of the gap), so a machine that keeps stalling costs one full pass per gap.
 */
import fs from 'node:fs'

/** A tick this much later than due means the watcher's queue went unread that long. */
export const STALL_MS = 3000
/** The least time between two rescans. */
export const RESCAN_GAP_MS = 30_000

/** The kernel's inotify queue size (the default when it cannot be read). */
export function queuedEventsLimit(): number {
  try {
    const n = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim())
    return Number.isFinite(n) && n > 0 ? n : 16_384
  } catch {
    return 16_384
  }
}

export class LostEvents {
  private raw = 0
  private lastTick: number
  private lastRescan = -Infinity
  private timer: NodeJS.Timeout | null = null
  private why: string | null = null
  /** Rescans run (for `cast daemon` status and tests). */
  rescans = 0

  constructor(
    private readonly rescan: (why: string) => void,
    now: number,
    private readonly burst = Math.max(256, Math.floor(queuedEventsLimit() / 4)),
    private readonly gapMs = RESCAN_GAP_MS,
  ) {
    this.lastTick = now
  }

  /** One raw watcher event. */
  event(): void {
    this.raw++
  }

  /** The periodic tick (every `everyMs`): a late tick or a burst near the queue's size asks for a rescan. */
  tick(now: number, everyMs: number): void {
    const late = now - this.lastTick - everyMs
    this.lastTick = now
    if (late >= STALL_MS) this.suspect(`the event loop stalled ${(late / 1000).toFixed(1)} s`, now)
    else if (this.raw >= this.burst) this.suspect(`${this.raw} watcher events in one tick`, now)
    this.raw = 0
  }

  /** Events may have been lost: rescan now, or at the end of the gap after the last rescan. */
  suspect(why: string, now: number): void {
    this.why ??= why
    if (this.timer) return
    const wait = Math.max(0, this.lastRescan + this.gapMs - now)
    this.timer = setTimeout(() => this.run(), wait)
    this.timer.unref()
  }

  private run(): void {
    this.timer = null
    const why = this.why ?? 'events may have been lost'
    this.why = null
    this.lastRescan = Date.now()
    this.rescans++
    this.rescan(why)
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }
}
