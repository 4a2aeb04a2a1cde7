#!/usr/bin/env node
// `cast status` runs in a status bar every few seconds, `cast state` in every agent turn, and
// `cast sessions` is the command people and scripts run most: answer them without loading oclif
// (src/lib/notify/status-fast.ts, src/lib/state/state-fast.ts, src/lib/cli/sessions-fast.ts). Anything they do not handle (help, a bad flag, an error) goes to oclif.
let answered = false
if (process.argv[2] === 'status') {
  try {
    const {fastStatus} = await import('../dist/lib/notify/status-fast.js')
    if (await fastStatus(process.argv.slice(3))) process.exit(0)
  } catch {
    // oclif reports it properly
  }
} else if (process.argv[2] === 'state') {
  try {
    // One file (scripts/bundle-fast.mjs) when the build made it, else the module graph.
    const {fastState} = await import('../dist/lib/state/state-fast.bundle.js').catch(() => import('../dist/lib/state/state-fast.js'))
    answered = await fastState(process.argv.slice(3))
  } catch {
    // oclif reports it properly
  }
} else if (process.argv[2] === '__complete') {
  // Shell completion calls this on every TAB: answer without oclif (src/lib/cli/complete-values.ts).
  try {
    const {fastComplete} = await import('../dist/lib/cli/complete-values.js')
    await fastComplete(process.argv.slice(3))
    answered = true
  } catch {
    // oclif runs the hidden command instead
  }
} else if (process.argv[2] === 'sessions') {
  try {
    const {fastSessions} = await import('../dist/lib/cli/sessions-fast.js')
    answered = await fastSessions(process.argv.slice(3))
  } catch {
    // oclif reports it properly
  }
}

if (!answered) {
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
