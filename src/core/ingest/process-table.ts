import fs from 'node:fs'
import path from 'node:path'

import {sameStart} from '../model/kill-plan.js'

/**
 * The live process table, read from /proc (Linux) with a kill(pid, 0) fallback elsewhere.
 * A pid counts as the claimed process only when it is alive and, when the claim records a start
 * time, the process started when it says (sameStart, src/core/model/kill-plan.ts), so pid reuse
 * cannot fake a live agent.
 */

let bootTimeMs: number | null | undefined
function bootTime(): number | null {
  if (bootTimeMs !== undefined) return bootTimeMs
  try {
    const m = /^btime (\d+)/m.exec(fs.readFileSync('/proc/stat', 'utf8'))
    bootTimeMs = m ? Number(m[1]) * 1000 : null
  } catch {
    bootTimeMs = null
  }

  return bootTimeMs
}

/** Clock ticks per second for /proc/<pid>/stat starttime (USER_HZ, 100 on Linux). */
const CLK_TCK = 100

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }

  // A zombie (exited, not yet reaped by its parent) answers kill(0) but is dead.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    // no /proc (not Linux): kill(0) is the answer
    return process.platform !== 'linux'
  }
}

/** Epoch ms a process started, from /proc; null where /proc is not available. */
export function processStartTime(pid: number): number | null {
  const boot = bootTime()
  if (boot === null) return null
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(rest[19])
    if (!Number.isFinite(ticks)) return null
    return boot + (ticks * 1000) / CLK_TCK
  } catch {
    return null
  }
}

/**
 * Is `pid` alive and the same process that started at `startedAt`? A claim without a start time
 * is not proof of life (docs/contract.md §5): pid reuse could fake it, so it reads not alive. pid 1 (init)
 * never runs an agent session.
 */
export function isSameProcessAlive(pid: number, startedAt: number | null): boolean {
  if (pid <= 1 || !pidAlive(pid)) return false
  if (startedAt === null || !Number.isFinite(startedAt)) return false
  const actual = processStartTime(pid)
  if (actual === null) return true
  return sameStart(actual, startedAt)
}

/** The parent pid of a process, from /proc; null at the top or where unknown. */
export function parentPid(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ppid = Number(rest[1])
    return Number.isInteger(ppid) && ppid > 0 ? ppid : null
  } catch {
    return null
  }
}

export function processName(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return null
  }
}

export function processArgv(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  } catch {
    return []
  }
}

/**
 * Files held open by processes whose name (comm, or argv[0]/argv[1] basename) is in `names`:
 * path -> pid. One pass over /proc per call.
 */
export function openFilesOf(names: readonly string[]): Map<string, number> {
  const out = new Map<string, number>()
  if (names.length === 0) return out
  let pids: string[]
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))
  } catch {
    return out
  }

  const wanted = new Set(names)
  for (const p of pids) {
    const pid = Number(p)
    const comm = processName(pid)
    let match = comm !== null && wanted.has(comm)
    if (!match) {
      const argv = processArgv(pid)
      match = argv.slice(0, 2).some((a) => wanted.has(path.basename(a)))
    }

    if (!match) continue
    let fds: string[]
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }

    for (const fd of fds) {
      try {
        out.set(fs.readlinkSync(`/proc/${pid}/fd/${fd}`), pid)
      } catch {
        // closed in the meantime
      }
    }
  }

  return out
}

const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno', 'sh', 'bash', 'dash', 'zsh', 'python', 'python3'])

/** The names a process goes by: its comm, argv[0]'s basename, and argv[1]'s when argv[0] is an interpreter. */
export function processNames(pid: number): string[] {
  const names: string[] = []
  const comm = processName(pid)
  if (comm) names.push(comm)
  const argv = processArgv(pid)
  const a0 = argv[0] ? path.basename(argv[0]) : null
  if (a0) names.push(a0)
  if (a0 && INTERPRETERS.has(a0.replace(/[\d.]+$/, '')) && argv[1] && !argv[1].startsWith('-')) names.push(path.basename(argv[1]))
  return names
}

let childrenFiles: boolean | undefined
let ppidMap: Map<number, number[]> | null = null

/** Drop the /proc scan childrenOf may have cached: each sweep sees the process tree afresh. */
export function forgetProcessTree(): void {
  ppidMap = null
}

/** Children of a process: /proc/<pid>/task/<tid>/children, else one scan of /proc per sweep. */
export function childrenOf(pid: number): number[] {
  childrenFiles ??= fs.existsSync(`/proc/${process.pid}/task/${process.pid}/children`)
  if (childrenFiles) {
    const out: number[] = []
    let tasks: string[]
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`)
    } catch {
      return out
    }

    for (const t of tasks) {
      try {
        for (const c of fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ')) if (c.trim()) out.push(Number(c))
      } catch {
        // gone
      }
    }

    return out
  }

  if (ppidMap === null) {
    ppidMap = new Map()
    let pids: string[] = []
    try {
      pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))
    } catch {
      pids = []
    }

    for (const p of pids) {
      try {
        const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8')
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        ppidMap.set(ppid, [...(ppidMap.get(ppid) ?? []), Number(p)])
      } catch {
        // gone
      }
    }
  }

  return ppidMap.get(pid) ?? []
}

/** Regular files a process holds open, from /proc/<pid>/fd. */
export function filesOpenBy(pid: number): string[] {
  let fds: string[]
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }

  const out: string[] = []
  for (const fd of fds) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
      if (target.startsWith('/') && !target.startsWith('/dev/') && !target.startsWith('/proc/')) out.push(target)
    } catch {
      // closed in the meantime
    }
  }

  return out
}

/**
 * Where each of a process's descriptors of `file` stands (`pos:` of /proc/<pid>/fdinfo/<fd>): for a
 * file opened with O_APPEND, the end of the last write made through it. Empty: none, or not ours to read.
 */
export function filePositions(pid: number, file: string): number[] {
  let fds: string[]
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }

  const out: number[] = []
  for (const fd of fds) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) !== file) continue
      const pos = /^pos:\s*(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))
      if (pos) out.push(Number(pos[1]))
    } catch {
      // closed in the meantime
    }
  }

  return out
}

/** A process's working directory (null: gone, or not ours to read). */
export function processCwd(pid: number): string | null {
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return null
  }
}

/**
 * The first process of a sandbox an agent runs its commands in, each in a PID namespace of its
 * own: bubblewrap's `bwrap`, or a launcher named `*-sandbox` (a command's
 * parent is pid 1, that launcher). Seen from inside, the host's processes (the agent, a live
 * ingester) are out of sight.
 */
const SANDBOX_FIRST = /^(bwrap|[\w.-]+-sandbox)$/

let sandboxFirst: string | null | undefined
/** The sandbox this process runs in (the name of pid 1 of its PID namespace), or null on the host. */
export function sandboxedView(): string | null {
  if (sandboxFirst !== undefined) return sandboxFirst
  sandboxFirst = processNames(1).find((n) => SANDBOX_FIRST.test(n)) ?? null
  return sandboxFirst
}

/** Is the process's stdout a terminal (a TUI) rather than a pipe or a file (a headless run)? Unknown: true. */
export function writesToTerminal(pid: number): boolean {
  try {
    const out = fs.readlinkSync(`/proc/${pid}/fd/1`)
    return out.startsWith('/dev/pts/') || out.startsWith('/dev/tty')
  } catch {
    return true
  }
}

/** A process's environment (null: unreadable, e.g. another user's). */
export function processEnv(pid: number): Record<string, string> | null {
  try {
    const out: Record<string, string> = {}
    for (const kv of fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const i = kv.indexOf('=')
      if (i > 0) out[kv.slice(0, i)] = kv.slice(i + 1)
    }
    return out
  } catch {
    return null
  }
}
