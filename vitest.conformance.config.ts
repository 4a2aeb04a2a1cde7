import {defineConfig} from 'vitest/config'

/**
 * The conformance suite: the real agent CLIs (devDependencies), driven in private tmux servers
 * against the project's mock model server. `npm run conformance`; `.ci/run` runs it after
 * `npm test`. Each agent file runs in its own fork; files run side by side.
 */
export default defineConfig({
  test: {
    disableConsoleIntercept: true,
    env: {FORCE_COLOR: '0', NO_COLOR: '1'},
    include: ['test/conformance/**/*.test.ts'],
    // Upper bounds for liveness on a loaded 2-core machine, never timing assertions.
    testTimeout: 240_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 3,
    retry: 0,
  },
})
