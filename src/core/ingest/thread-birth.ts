/**
 * Which live process created a session, for agents whose interactive process creates its session
 * as it starts (the adapter's `sessionAtStart`: a TUI that asks its shared app-server daemon for a
 * thread right after it starts, before any prompt; docs/agents/, "Which thread a TUI shows").
 *
 * The processes of that agent in one folder, ordered by start time, split time into windows: a
 * process's window opens at its start (less a clock slack) and closes at the next one's start
 * (less the same slack) or BIRTH_WINDOW_MS after its own, whichever is first. A session created
 * inside one window was created by that window's process; one created in no window by none of
 * them (resumed, or of a process that is gone). A process whose window holds exactly one session
 * is that session's; none, or several (two TUIs started within seconds of each other, one still
 * starting while the other's thread appeared): none. Never a guess between several.
 *
 * On a slow machine a TUI's thread can appear after the next TUI started, in that one's window,
 * while the next one's own thread is not there yet: its window then holds exactly one session,
 * the wrong one. So a session in a process's window is in doubt while an earlier live process's
 * window holds none of the folder's sessions and that process could still have created it (its
 * own BIRTH_WINDOW_MS reaches the session's creation): no process is tied to it by birth.
 */

/** A session's creation follows its process's start by at most this much (a first start installs the daemon). */
export const BIRTH_WINDOW_MS = 60_000
/** Clock slack between a process's start time (clock ticks) and its session's creation time. */
export const BIRTH_SLACK_MS = 2000

export interface Creator {
  readonly pid: number
  readonly startedAt: number
}

export interface Born {
  readonly nativeId: string
  readonly createdAt: number | null
}

/** The window [from, to) in which `pid` created its session, or null when it is not among `creators`. */
export function birthWindow(creators: readonly Creator[], pid: number): {from: number; to: number} | null {
  const me = creators.find((c) => c.pid === pid)
  if (!me) return null
  let to = me.startedAt + BIRTH_WINDOW_MS
  for (const c of creators) {
    if (c.pid === pid) continue
    // The next process to start closes this one's window; two started at the same tick share none.
    if (c.startedAt >= me.startedAt) to = Math.min(to, c.startedAt - BIRTH_SLACK_MS)
  }
  return {from: me.startedAt - BIRTH_SLACK_MS, to}
}

const within = (w: {from: number; to: number}, s: Born): boolean => s.createdAt !== null && s.createdAt >= w.from && s.createdAt < w.to

/** The one session `pid` created, or null (none, several, the window is empty, or it is in doubt). */
export function sessionBornOf(creators: readonly Creator[], pid: number, sessions: readonly Born[]): string | null {
  const w = birthWindow(creators, pid)
  if (w === null || w.to <= w.from) return null
  const inside = sessions.filter((s) => within(w, s))
  if (inside.length !== 1 || birthInDoubt(creators, pid, inside[0]!, sessions)) return null
  return inside[0]!.nativeId
}

/**
 * Could `session`, created in `pid`'s window, be the late thread of a process that started
 * before `pid`? Yes while such a live process's own window holds none of `sessions` and its
 * BIRTH_WINDOW_MS reaches the session's creation.
 */
export function birthInDoubt(creators: readonly Creator[], pid: number, session: Born, sessions: readonly Born[]): boolean {
  const me = creators.find((c) => c.pid === pid)
  if (!me || session.createdAt === null) return false
  return creators.some((c) => {
    if (c.pid === pid || c.startedAt >= me.startedAt || c.startedAt + BIRTH_WINDOW_MS <= session.createdAt!) return false
    const w = birthWindow(creators, c.pid)
    return w !== null && !sessions.some((s) => within(w, s))
  })
}

/** Was the session created inside the window of a live process other than `pid`? */
export function bornOfAnother(creators: readonly Creator[], pid: number, session: Born): boolean {
  if (session.createdAt === null) return false
  return creators.some((c) => {
    if (c.pid === pid) return false
    const w = birthWindow(creators, c.pid)
    return w !== null && within(w, session)
  })
}
