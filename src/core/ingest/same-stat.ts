/**
 * Does a file's stat still match the mark the store keeps of it (device, inode, size, mtime in
 * whole milliseconds as stored)? The one test behind "unchanged since it was read" in the pass,
 * the deferral, the shared read and the lazy loading of parser states.
 */
import type fs from 'node:fs'

export interface StatMark {
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
}

export function sameStat(mark: StatMark | undefined, st: fs.Stats | undefined): boolean {
  return (
    mark !== undefined &&
    st !== undefined &&
    mark.dev === st.dev &&
    mark.ino === st.ino &&
    mark.size === st.size &&
    mark.mtimeMs === Math.floor(st.mtimeMs)
  )
}
