/**
 * The page's side of the phone (docs/web.md, "The phone"): registers the service worker
 * (/sw.js), offers "Notify this device" (subscribe with the server's VAPID key and store the
 * subscription with this paired device), tells the server about keystrokes (the phone is held
 * while you type here), and sets the app badge to the Questions count where the Badging API is.
 */
interface Nav {
  setAppBadge?(n: number): Promise<void>
  clearAppBadge?(): Promise<void>
}

let lastBadge = -1

/** The app badge: the Questions count (0 clears it). */
export function setBadge(n: number): void {
  if (n === lastBadge) return
  lastBadge = n
  const nav = navigator as unknown as Nav
  void (n > 0 ? nav.setAppBadge?.(n) : nav.clearAppBadge?.())?.catch(() => undefined)
}

function keyBytes(b64: string): Uint8Array<ArrayBuffer> {
  const s = atob(b64.replace(/-/g, '+').replace(/_/g, '/'))
  const out = new Uint8Array(new ArrayBuffer(s.length))
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i)
  return out
}

async function postJson(path: string, body: unknown): Promise<{ok: boolean; json: {error?: {message?: string}} & Record<string, unknown>}> {
  const r = await fetch(path, {body: JSON.stringify(body), headers: {'content-type': 'application/json'}, method: 'POST'})
  return {json: (await r.json().catch(() => ({}))) as {error?: {message?: string}}, ok: r.ok}
}

/** Subscribe this device; the line to show. */
export async function notifyThisDevice(): Promise<string> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window))
    return 'This browser cannot receive pages here (a service worker needs HTTPS, or localhost).'
  const permission = await Notification.requestPermission()
  if (permission !== 'granted') return 'Notifications are blocked for this page in the browser’s settings.'
  const reg = await navigator.serviceWorker.ready
  const k = (await (await fetch('/api/push/key')).json()) as {public_key?: string}
  if (!k.public_key) return 'Not subscribed: the server gave no key.'
  try {
    const sub = await reg.pushManager.subscribe({applicationServerKey: keyBytes(k.public_key), userVisibleOnly: true})
    const r = await postJson('/api/push/subscribe', sub.toJSON())
    return r.ok ? 'This device will be paged when an agent waits on you.' : `Not subscribed: ${r.json.error?.message ?? 'refused'}`
  } catch (error) {
    return `Not subscribed: ${(error as Error).message}`
  }
}

export function setupPush(say: (line: string) => void): void {
  if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/sw.js', {scope: '/', type: 'module'}).catch(() => undefined)
  const top = document.querySelector('header.top')
  if (top && !document.querySelector('#notify-button')) {
    const b = document.createElement('button')
    b.id = 'notify-button'
    b.type = 'button'
    // A bell in the header's one row (a phone has no room for the words); the words are its name.
    b.textContent = '🔔'
    b.title = 'Notify this device'
    b.setAttribute('aria-label', 'Notify this device')
    b.addEventListener('click', () => void notifyThisDevice().then(say))
    top.append(b)
  }

  let sent = 0
  document.addEventListener('keydown', () => {
    const now = Date.now()
    if (now - sent < 20_000) return
    sent = now
    void postJson('/api/push/active', {}).catch(() => undefined)
  })
}
