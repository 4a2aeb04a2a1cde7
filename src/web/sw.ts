/**
 * The page's service worker (served at /sw.js, scope "/"): shows what the daemon pushes (a page
 * from src/lib/push/payload.ts), runs a notification's action by posting its one-use token to
 * /api/push/act with this device's credential (the cookie), and shows the receipt in place of
 * the page (same tag). The app badge is the Questions count, where the Badging API exists.
 * Every text it shows came through the server's notificationText; a notification renders text only.
 */
export {}

interface PageAction {
  readonly action: string
  readonly title: string
  readonly token?: string
}

interface PagePayload {
  readonly v: 1
  readonly tag: string
  readonly title: string
  readonly body: string
  readonly sessions: readonly string[]
  readonly actions: readonly PageAction[]
  readonly url: string
  readonly badge: number
}

interface Shown {
  readonly data: unknown
  readonly tag: string
  close(): void
}

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void
}

interface PushEvent extends ExtendableEvent {
  readonly data: {json(): unknown; text(): string} | null
}

interface NotificationClick extends ExtendableEvent {
  readonly action: string
  readonly notification: Shown
}

interface WindowClient {
  readonly url: string
  focus(): Promise<unknown>
  navigate(url: string): Promise<unknown>
}

interface Scope {
  readonly registration: {
    showNotification(title: string, options: Record<string, unknown>): Promise<void>
    getNotifications(filter?: {tag?: string}): Promise<Shown[]>
  }
  readonly clients: {
    claim(): Promise<void>
    matchAll(o: {type: 'window'; includeUncontrolled: boolean}): Promise<WindowClient[]>
    openWindow(url: string): Promise<unknown>
  }
  readonly location: {origin: string}
  readonly navigator: {setAppBadge?(n: number): Promise<void>; clearAppBadge?(): Promise<void>}
  skipWaiting(): Promise<void>
  addEventListener(type: string, listener: (e: Event) => void): void
  /** For a test: the last receipt shown. */
  __castLast?: {title: string; body: string}
}

const sw = globalThis as unknown as Scope

/** A synthetic event (dispatchEvent) may refuse waitUntil; the work runs either way. */
function keep(e: ExtendableEvent, p: Promise<unknown>): void {
  try {
    e.waitUntil(p)
  } catch {
    // not an event the browser waits on
  }
}

function isPayload(v: unknown): v is PagePayload {
  const p = v as Partial<PagePayload> | null
  return !!p && p.v === 1 && typeof p.title === 'string' && typeof p.tag === 'string' && Array.isArray(p.actions)
}

async function badge(n: number): Promise<void> {
  try {
    if (n > 0) await sw.navigator.setAppBadge?.(n)
    else await sw.navigator.clearAppBadge?.()
  } catch {
    // not supported here
  }
}

/** As many actions as the browser shows (Chromium: 2): the answers first; a tap on the body opens the page. */
function shownActions(p: PagePayload): {action: string; title: string}[] {
  const max = (globalThis as unknown as {Notification?: {maxActions?: number}}).Notification?.maxActions ?? 2
  const ordered = [...p.actions.filter((a) => a.token !== undefined), ...p.actions.filter((a) => a.token === undefined)]
  return ordered.slice(0, Math.max(max, 0)).map((a) => ({action: a.action, title: a.title}))
}

async function show(p: PagePayload): Promise<void> {
  await sw.registration.showNotification(p.title, {
    actions: shownActions(p),
    badge: '/icon-192.png',
    body: p.body,
    data: p,
    icon: '/icon-192.png',
    renotify: true,
    requireInteraction: p.actions.some((a) => a.token !== undefined),
    tag: p.tag,
  })
  await badge(p.badge)
}

sw.addEventListener('install', (e) => keep(e as ExtendableEvent, sw.skipWaiting()))
sw.addEventListener('activate', (e) => keep(e as ExtendableEvent, sw.clients.claim()))

sw.addEventListener('push', (e) => {
  const ev = e as PushEvent
  let p: unknown = null
  try {
    p = ev.data?.json() ?? null
  } catch {
    p = null
  }

  keep(ev, isPayload(p) ? show(p) : sw.registration.showNotification('cast: a session needs you', {tag: 'cast-count'}))
})

async function open(url: string): Promise<void> {
  const target = new URL(url, sw.location.origin).href
  const wins = await sw.clients.matchAll({includeUncontrolled: true, type: 'window'})
  const w = wins[0]
  if (w) {
    await w.navigate(target).catch(() => undefined)
    await w.focus()
  } else await sw.clients.openWindow(target)
}

/** Run the action: the server answers with the receipt, shown in place of the page. */
async function act(p: PagePayload, a: PageAction): Promise<void> {
  let title: string
  let body = ''
  try {
    const r = await fetch('/api/push/act', {
      body: JSON.stringify({token: a.token}),
      credentials: 'include',
      headers: {'content-type': 'application/json'},
      method: 'POST',
    })
    const j = (await r.json().catch(() => ({}))) as {title?: unknown; body?: unknown; error?: {message?: unknown}}
    if (r.ok && typeof j.title === 'string') {
      title = j.title
      body = typeof j.body === 'string' ? j.body : ''
    } else title = `Not sent: ${typeof j.error?.message === 'string' ? j.error.message : `the server answered ${r.status}`}`
  } catch {
    title = 'Not sent: cast web could not be reached'
  }

  sw.__castLast = {body, title}
  await sw.registration.showNotification(title, {
    body,
    data: {receipt: true, url: p.url},
    icon: '/icon-192.png',
    renotify: false,
    tag: p.tag,
  })
}

sw.addEventListener('notificationclick', (e) => {
  const ev = e as NotificationClick
  const n = ev.notification
  n.close()
  const data = n.data as (PagePayload & {receipt?: boolean}) | {receipt: true; url: string} | null
  const url = data && typeof (data as {url?: unknown}).url === 'string' ? (data as {url: string}).url : '/'
  const action = isPayload(data) ? data.actions.find((a) => a.action === ev.action && a.token !== undefined) : undefined
  keep(ev, action && isPayload(data) ? act(data, action) : open(url))
})
