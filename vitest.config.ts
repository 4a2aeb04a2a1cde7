import {defineConfig} from 'vitest/config'

import {HeavyApartSequencer} from './test/helpers/sequencer.js'

export default defineConfig({
  test: {
    disableConsoleIntercept: true,
    env: {FORCE_COLOR: '0', NO_COLOR: '1'},
    include: ['test/**/*.test.ts'],
    exclude: ['test/conformance/**', 'node_modules/**'],
    // Upper bounds for liveness on a loaded 2-core machine, never timing assertions.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each file runs in a fresh worker process (vitest's default). With one process running file
    // after file, a clean-clone CI run lost a worker mid-file ("Worker exited unexpectedly", the
    // file's results gone) after about ninety files had run in it; a fresh process per file costs
    // about 0.2 s of CPU a file and leaves nothing of one file to the next.
    isolate: true,
    // vitest's default in run mode is (cores - 1): one worker on the 2-core CI machine, so the
    // files ran one after another. Most of a file's time is spent waiting on the processes it
    // starts (the CLI, fake agents, tmux, daemons). Three workers kept two cores busy while the
    // suite was small (218 s with two, 177 s with three); with the Chromium, PostgreSQL and
    // 30,000-file files of today three made timing-bound tests flake in clean-clone CI runs (a
    // different one or two each run, each passing alone), so two; VITEST_MAX_WORKERS or
    // --maxWorkers overrides it.
    maxWorkers: 2,
    // The heavy reliability files (live ingesters, long catch-ups, many writers) never run two at
    // once, so one does not starve the other: the sequencer plans it (the light files fill the
    // other worker) and heavy-lock.ts holds a lock across workers while a heavy file runs.
    sequence: {sequencer: HeavyApartSequencer},
    setupFiles: ['test/helpers/heavy-lock.ts'],
  },
})
