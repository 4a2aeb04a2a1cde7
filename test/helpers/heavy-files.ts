/**
 * Test files that load the machine or keep time-bounded liveness checks (heartbeats, a watcher's
 * reads): a live ingester, a 60,000-file catch-up, twenty writers, a kill -9 loop, the read
 * worker. Never two at once (sequencer.ts plans it, heavy-lock.ts makes sure).
 */
export const HEAVY_FILES: readonly string[] = [
  'test/reliability/concurrent-writers.test.ts',
  'test/reliability/ingest-lease.test.ts',
  'test/reliability/ingest-live.test.ts',
  'test/reliability/ingest-trust.test.ts',
  'test/reliability/kill-ingester.test.ts',
  'test/reliability/read-worker.test.ts',
]
