/**
 * Whether keys typed into a pane reach the agent. tmux delivers keys to the pane's terminal, and
 * the terminal hands them to its foreground process group, whatever that is: with the agent
 * suspended (Ctrl-Z, SIGSTOP: state T) its shell has taken the terminal back, and typed text runs
 * as a shell command. So before each batch of keys the agent's process must be
 *
 * - running (not stopped: state T or t in /proc/<pid>/stat),
 * - on the pane's terminal (its controlling tty, `tty_nr`, is the pane's tty device), and
 * - in the terminal's foreground process group (`tpgid` equals its `pgrp`).
 *
 * Fields from proc(5): `pid (comm) state ppid pgrp session tty_nr tpgid …`.
 */
import fs from 'node:fs'

export interface TtyStat {
  readonly state: string
  readonly pgrp: number
  readonly ttyNr: number
  readonly tpgid: number
}

/** The terminal fields of /proc/<pid>/stat, or null when the process is gone (or there is no /proc). */
export function readTtyStat(pid: number): TtyStat | null {
  let stat: string
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }

  // comm may hold spaces and parentheses: the fields start after the last ')'.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return {pgrp: Number(f[2]), state: f[0] ?? '?', tpgid: Number(f[5]), ttyNr: Number(f[4])}
}

/** The device number of a terminal (`/dev/pts/3`) in /proc's tty_nr encoding, or null. */
export function ttyDevice(ttyPath: string): number | null {
  try {
    const st = fs.statSync(ttyPath)
    if (!st.isCharacterDevice()) return null
    // Linux's new_encode_dev, which /proc's tty_nr uses: minor's low byte, major, minor's high bits.
    const major = Math.floor(st.rdev / 256) & 0xf_ff
    const minor = (st.rdev & 0xff) | (Math.floor(st.rdev / 4096) & 0xf_ff_00)
    return (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12)
  } catch {
    return null
  }
}

export type ForegroundRefusal =
  | {readonly kind: 'gone'; readonly why: string}
  | {readonly kind: 'suspended'; readonly why: string}
  | {readonly kind: 'background'; readonly why: string}

/**
 * Null when keys typed into the terminal `ttyPath` now reach process `pid`; else why not.
 * `ttyPath` null: the pane's terminal is unknown, and the process must still be in the
 * foreground of its own controlling terminal.
 */
export function foregroundRefusal(pid: number, ttyPath: string | null): ForegroundRefusal | null {
  const s = readTtyStat(pid)
  if (s === null) return {kind: 'gone', why: `process ${pid} is gone`}
  if (s.state === 'T' || s.state === 't') return {kind: 'suspended', why: `process ${pid} is stopped (state ${s.state}: Ctrl-Z or SIGSTOP)`}
  if (s.ttyNr === 0 || s.tpgid <= 0) return {kind: 'background', why: `process ${pid} has no controlling terminal`}
  if (ttyPath !== null) {
    const dev = ttyDevice(ttyPath)
    if (dev !== null && dev !== s.ttyNr) return {kind: 'background', why: `process ${pid} is not on the pane's terminal ${ttyPath}`}
  }

  if (s.tpgid !== s.pgrp) {
    const who = readTtyStat(s.tpgid) === null ? `process group ${s.tpgid}` : describeGroup(s.tpgid)
    return {kind: 'background', why: `${who} has the terminal, not process ${pid} (group ${s.pgrp})`}
  }

  return null
}

/** `bash (process group 4242)`: the name of the group's leader. */
function describeGroup(pgrp: number): string {
  try {
    const comm = fs
      .readFileSync(`/proc/${pgrp}/comm`, 'utf8')
      .trim()
      .replace(/[^\w.+-]/g, '?')
    return `${comm} (process group ${pgrp})`
  } catch {
    return `process group ${pgrp}`
  }
}
