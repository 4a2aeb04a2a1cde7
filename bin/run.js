#!/usr/bin/env node
// `cast status` runs in a status bar every few seconds: answer it without loading oclif
// (src/lib/notify/status.ts). Anything it does not handle (help, a bad flag, an error) goes to oclif.
if (process.argv[2] === 'status') {
  try {
    const {fastStatus} = await import('../dist/lib/notify/status.js')
    if (await fastStatus(process.argv.slice(3))) process.exit(0)
  } catch {
    // oclif reports it properly
  }
}

const {execute} = await import('@oclif/core')
await execute({dir: import.meta.url})
