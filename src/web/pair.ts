/**
 * The pairing page: a device exchanges the code `cast web pair` printed for its own credential
 * (an HttpOnly cookie the server sets, and a key the inbox page keeps in this origin's storage),
 * then opens the inbox.
 */
const form = document.querySelector<HTMLFormElement>('#pair-form')!
const statusLine = document.querySelector<HTMLElement>('#pair-status')!
// The QR code of `cast web pair` opens /pair#CODE: the fragment is never sent to the server; the
// code is filled in and taken out of the address bar (and so out of the history).
const fromAddress = decodeURIComponent(window.location.hash.slice(1))
  .replace(/[^0-9A-Za-z-]/g, '')
  .slice(0, 16)
if (fromAddress) {
  document.querySelector<HTMLInputElement>('#code')!.value = fromAddress
  window.history.replaceState(null, '', window.location.pathname)
  statusLine.textContent = 'The code is filled in: name this device and press Pair.'
}
form.addEventListener('submit', (e) => {
  e.preventDefault()
  const code = document.querySelector<HTMLInputElement>('#code')!.value
  const name = document.querySelector<HTMLInputElement>('#name')!.value || 'device'
  statusLine.textContent = 'Pairing…'
  void fetch('/api/pair', {body: JSON.stringify({code, name}), headers: {'content-type': 'application/json'}, method: 'POST'})
    .then(async (res) => {
      const json = (await res.json()) as {error?: {message: string}; key?: string}
      // The device's key: kept in this origin's storage, sent as a header on every call (never a cookie).
      if (res.ok && typeof json.key === 'string') window.location.assign(`/#key=${json.key}`)
      else if (res.ok) window.location.assign('/')
      else statusLine.textContent = json.error?.message ?? `HTTP ${res.status}`
    })
    .catch((error: Error) => {
      statusLine.textContent = error.message
    })
})
export {}
