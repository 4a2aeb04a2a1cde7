/**
 * The file handling around a settings document: a malformed file is refused untouched, a file
 * about to change is backed up first (`<file>.cast-backup-<timestamp>`), and every write is
 * atomic (a temporary file in the same folder, then rename). A symlinked settings file
 * (dotfiles) is read and written through to its target.
 */
import fs from 'node:fs'
import path from 'node:path'

import {type Env, homeDir} from '../../home/env.js'
import {HooksFileError, isPlainObject, type Json} from './document.js'

export interface TextFile {
  /** The path written (a symlink's target). */
  readonly real: string
  readonly exists: boolean
  readonly text: string
}

export interface JsonFile extends TextFile {
  readonly doc: Json
}

function realTarget(file: string): string {
  try {
    return fs.realpathSync(file)
  } catch {
    return file
  }
}

/** The file's text ('' and exists false when there is none). */
export function readText(file: string): TextFile {
  const real = realTarget(file)
  try {
    return {exists: true, real, text: fs.readFileSync(real, 'utf8')}
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {exists: false, real, text: ''}
    throw new HooksFileError(`Cannot read ${file}: ${(error as Error).message}`, file)
  }
}

/** The file as a JSON object (`{}` when missing or blank); HooksFileError when it is anything else. */
export function readJsonFile(file: string, jsonc = false): JsonFile {
  const {exists, real, text} = readText(file)
  if (!exists || text.trim() === '') return {doc: {}, exists, real, text}
  let doc: unknown
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (error) {
    const hint = jsonc ? "; comments are not supported by cast's installer: add the entries by hand (see --dry-run)" : ''
    throw new HooksFileError(
      `${file} is not valid JSON (${jsonErrorWhere(text, (error as Error).message)})${hint}. Nothing was changed.`,
      file,
    )
  }

  if (!isPlainObject(doc)) throw new HooksFileError(`${file} does not hold a JSON object. Nothing was changed.`, file)
  return {doc, exists: true, real, text}
}

/** JSON.parse's message with the line and column of its byte position, when it gives one. */
function jsonErrorWhere(text: string, message: string): string {
  const m = /at position (\d+)/.exec(message)
  if (!m || /line \d+/.test(message)) return message
  const before = text.slice(0, Number(m[1]))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return `${message.replace(/ in JSON at position \d+.*$/, '')} at line ${line}, column ${column}`
}

/** The indentation the file uses (two spaces when it has none). */
function indentOf(text: string): string | number {
  const m = /^([ \t]+)["}\]]/m.exec(text)
  return m ? m[1]! : 2
}

/** The document as the original file would have written it: its indentation, line ends and final newline. */
export function serializeJson(doc: unknown, original = ''): string {
  const eol = original === '' || original.endsWith('\n') ? '\n' : ''
  const out = JSON.stringify(doc, null, indentOf(original)) + eol
  return original.includes('\r\n') ? out.replaceAll('\n', '\r\n') : out
}

function stamp(now: number): string {
  return new Date(now)
    .toISOString()
    .replaceAll(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
}

/**
 * Copy the file beside itself as `<file>.cast-backup-<UTC timestamp>` (never over another
 * backup), mode 0600 from its creation: a settings file may hold tokens, and a backup left in the
 * folder must not be readable by others even when the original is.
 */
export function backupFile(file: string, now: number): string {
  const base = `${file}.cast-backup-${stamp(now)}`
  const content = fs.readFileSync(file)
  for (let i = 0; ; i++) {
    const target = i === 0 ? base : `${base}-${i}`
    let fd: number
    try {
      fd = fs.openSync(target, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue
      throw error
    }

    try {
      // The umask cannot widen 0600; fchmod narrows what a strange umask left.
      fs.fchmodSync(fd, 0o600)
      fs.writeSync(fd, content)
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }

    return target
  }
}

/** Write through a temporary file in the same folder and rename it over the target. */
export function writeAtomic(file: string, text: string): void {
  const dir = path.dirname(file)
  // Folders cast creates are private; a settings file keeps its mode, and a new one is 0600.
  fs.mkdirSync(dir, {mode: 0o700, recursive: true})
  let mode = 0o600
  try {
    mode = fs.statSync(file).mode & 0o777
  } catch {
    // a new file
  }

  const tmp = path.join(dir, `.${path.basename(file)}.cast-tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`)
  const fd = fs.openSync(tmp, 'wx', mode)
  try {
    fs.writeSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }

  try {
    fs.chmodSync(tmp, mode)
    fs.renameSync(tmp, file)
  } catch (error) {
    fs.rmSync(tmp, {force: true})
    throw error
  }
}

/** Back the file up (when it has content) and write the new text atomically; the backup's path, or null. */
export function replaceFile(current: TextFile, text: string, now: number): string | null {
  const backup = current.exists && current.text !== '' ? backupFile(current.real, now) : null
  writeAtomic(current.real, text)
  return backup
}

/** Is the file there, a regular file, and executable? */
export function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** `/home/me/.agent/settings.json` → `~/.agent/settings.json` (for human output only). */
export function tildePath(p: string, env: Env): string {
  const home = homeDir(env)
  return home && (p === home || p.startsWith(home + path.sep)) ? '~' + p.slice(home.length) : p
}
