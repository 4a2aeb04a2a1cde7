/**
 * pi writes its session file only when the first assistant message ends, in the TUI and in
 * `pi -p` alike (docs/agents/pi.md): a headless run before its first reply, or killed before it,
 * has nothing on disk. The engine lists such a run from its process (src/core/ingest/unwritten-runs.ts);
 * this says what is known of it. pi sets its process title, so /proc shows argv `pi` alone: the
 * prompt (and so a title) is not readable, only that a prompt is in flight.
 */
import type {SessionFacts} from '../../core/model/types.js'

export function piUnwrittenRun(p: {readonly cwd: string; readonly startedAt: number}): Partial<SessionFacts> {
  return {
    createdAt: p.startedAt,
    cwd: p.cwd,
    lastActivityAt: p.startedAt,
    messages: 1,
    settled: false,
    title: 'pi -p (before its first reply)',
    turnIndex: 1,
    turnStartedAt: p.startedAt,
  }
}
