/**
 * The pairing page: a device exchanges the code `cast web pair` printed for its own credential
 * (an HttpOnly cookie the server sets), then opens the inbox.
 */
const form = document.querySelector<HTMLFormElement>('#pair-form')!
const statusLine = document.querySelector<HTMLElement>('#pair-status')!
form.addEventListener('submit', (e) => {
  e.preventDefault()
  const code = document.querySelector<HTMLInputElement>('#code')!.value
  const name = document.querySelector<HTMLInputElement>('#name')!.value || 'device'
  statusLine.textContent = 'Pairing…'
  void fetch('/api/pair', {body: JSON.stringify({code, name}), headers: {'content-type': 'application/json'}, method: 'POST'})
    .then(async (res) => {
      const json = (await res.json()) as {error?: {message: string}}
      if (res.ok) window.location.assign('/')
      else statusLine.textContent = json.error?.message ?? `HTTP ${res.status}`
    })
    .catch((error: Error) => {
      statusLine.textContent = error.message
    })
})
export {}
