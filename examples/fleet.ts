// Two workers, each through its steps: spawn with cast, follow and steer with the library.
import {execFileSync} from 'node:child_process'
import {CastError, openInbox} from 'cast-inbox'

const plan: Record<string, string[]> = {
  parser: ['Write a parser for the config format', 'Add unit tests for the parser'],
  docs: ['Draft docs/config.md', 'Add an example to docs/config.md', 'Proofread docs/config.md'],
}
const label = `fleet-${process.pid}`
const inbox = await openInbox()
const since = inbox.seq() // before the spawns: no transition of theirs is missed
const workers = new Map<string, {name: string; next: number}>()
for (const [name, steps] of Object.entries(plan)) {
  const out = execFileSync('cast', ['spawn', steps[0]!, '--agent', 'claude', '--label', label, '--json'], {encoding: 'utf8'})
  const s = JSON.parse(out) as {id: string; short_id: string}
  workers.set(s.id, {name, next: 1})
  console.log(`spawned ${name} as ${s.short_id}`)
}

const stop = new AbortController()
for await (const t of inbox.watch({label, since, signal: stop.signal})) {
  const w = workers.get(t.id)
  if (!w || t.to === 'working') continue
  console.log(`${w.name}: ${t.from} → ${t.to} (${t.reason})`)
  const step = plan[w.name]![w.next]
  if (step === undefined) {
    workers.delete(t.id)
    console.log(`${w.name}: all ${w.next} steps done`)
    if (workers.size === 0) stop.abort()
    continue
  }
  try {
    await inbox.send(t.id, step, {ifState: [t.to]}) // refused (exit 5) if it moved on meanwhile
    console.log(`${w.name}: sent step ${++w.next}: ${step}`)
  } catch (error) {
    if (!(error instanceof CastError)) throw error
    console.log(`${w.name}: ${error.message}`)
  }
}
inbox.close()
