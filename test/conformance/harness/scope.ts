/**
 * Per-case cleanup for conformance files whose cases run side by side (`it.concurrent`).
 *
 * A case's agents, tmux server, mock and watch are stopped when that case finishes (passed or
 * failed, each attempt of a retry), not when its file ends: an OpenCode TUI holds ~900 MB and a
 * tenth of a core while idle, and twenty of them left running until `afterAll` starved the later
 * cases on a 2-core machine (their TUIs never drew within the ready bound).
 *
 * `concurrentCase` runs the case inside an AsyncLocalStorage scope holding its test context, so
 * code deep in a rig can register a cleanup with `atCaseEnd` without the context passed down.
 * Outside a case (beforeAll, a warm-up) the cleanup goes to the file's list, run in `afterAll`.
 */
import {AsyncLocalStorage} from 'node:async_hooks'
import {it, type TestContext} from 'vitest'

type Cleanup = () => Promise<void> | void

const scope = new AsyncLocalStorage<TestContext>()

/** `it.concurrent(name, fn, timeout)` whose cleanups registered with `atCaseEnd` run when it ends. */
export function concurrentCase(name: string, fn: (ctx: TestContext) => Promise<void>, timeout?: number): void {
  it.concurrent(name, (ctx) => scope.run(ctx, () => fn(ctx)), timeout)
}

/** Run `fn` when the current case ends; outside a case, push it to `fallback` (the file's afterAll list). */
export function atCaseEnd(fallback: Cleanup[], fn: Cleanup): void {
  const ctx = scope.getStore()
  if (!ctx) {
    fallback.push(fn)
    return
  }

  ctx.onTestFinished(async () => {
    try {
      await fn()
    } catch {
      // Best effort, as the file's afterAll: a process already gone is not a failure of the case.
    }
  })
}
