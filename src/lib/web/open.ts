/**
 * `cast web --open` without the login token on any command line (another process can read a
 * command line: `ps`, /proc/PID/cmdline): the token goes into a sign-in file in CAST_HOME/web/
 * (folder 0700, file 0600, a random name), a page that posts it to the server's /login at once;
 * the browser is opened on that file's path, which holds nothing secret. The file is removed as
 * soon as the token is used, and after SIGN_IN_FILE_MS in any case.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import {webDir} from '../home/devices.js'

export const SIGN_IN_FILE_MS = 120_000

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** Write the sign-in file for `origin` (http://127.0.0.1:PORT) and the token; its path. */
export function writeSignInFile(home: string, origin: string, token: string): string {
  const dir = webDir(home)
  fs.mkdirSync(dir, {mode: 0o700, recursive: true})
  fs.chmodSync(dir, 0o700)
  const file = path.join(dir, `sign-in-${crypto.randomBytes(6).toString('hex')}.html`)
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cast inbox: signing in</title></head>
<body>
<form method="post" action="${esc(origin)}/login"><input type="hidden" name="token" value="${esc(token)}">
<p>Signing in to cast web… <button type="submit">Sign in</button></p></form>
<script>document.forms[0].submit()</script>
</body></html>
`
  fs.writeFileSync(file, html, {flag: 'wx', mode: 0o600})
  return file
}

/**
 * Open the browser on the sign-in file and remove the file once `used()` says the token is
 * spent (checked twice a second), or after SIGN_IN_FILE_MS.
 */
export async function openSignIn(home: string, origin: string, token: string, used: () => boolean): Promise<void> {
  const file = writeSignInFile(home, origin, token)
  const started = Date.now()
  const timer = setInterval(() => {
    if (!used() && Date.now() - started < SIGN_IN_FILE_MS) return
    clearInterval(timer)
    fs.rmSync(file, {force: true})
  }, 500)
  timer.unref()
  const {spawn} = await import('node:child_process')
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  try {
    spawn(opener, [file], {detached: true, stdio: 'ignore'})
      .on('error', () => undefined)
      .unref()
  } catch {
    // No opener: the address is printed.
  }
}
