/**
 * Where the store says a file was read up to, for the ingest engine's last check before it
 * commits: several processes may sync at once (no daemon: every command syncs first), and a
 * read that another process has overtaken must not overwrite the newer one.
 */
import type {FileRow, Store} from './store.js'

/** The part of a files row that changes when a file is read. */
export type FileMark = Pick<FileRow, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'offset' | 'parseErrors'>

export function fileMark(store: Store, path: string): FileMark | null {
  const r = store.q('SELECT dev, ino, size, mtime_ms, offset, parse_errors FROM files WHERE path = ?').get(path) as
    Record<string, unknown> | undefined
  if (!r) return null
  return {
    dev: Number(r.dev),
    ino: Number(r.ino),
    mtimeMs: Number(r.mtime_ms),
    offset: Number(r.offset),
    parseErrors: Number(r.parse_errors),
    size: Number(r.size),
  }
}

export function sameMark(a: FileMark | null | undefined, b: FileMark | null | undefined): boolean {
  if (!a || !b) return !a && !b
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.offset === b.offset &&
    a.parseErrors === b.parseErrors
  )
}
