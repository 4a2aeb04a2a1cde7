import {defineConfig} from 'vitest/config'

/**
 * The conformance suite: the real agent CLIs (`npm run conformance:setup` installs them), driven in private tmux servers
 * against the project's mock model server. `npm run conformance`; `.ci/run` runs it after
 * `npm test`. Each agent file runs in its own fork; files run side by side.
 */
export default defineConfig({
  test: {
    disableConsoleIntercept: true,
    env: {CAST_TEST_TIMEOUT_MS: '120000', FORCE_COLOR: '0', NO_COLOR: '1'},
    include: ['test/conformance/**/*.test.ts'],
    // Upper bounds for liveness on a loaded 2-core machine, never timing assertions.
    testTimeout: 480_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores: two agent files side by side (each runs several sessions at once inside).
    maxWorkers: 2,
    // it.concurrent inside a file: at most three agents at once per file.
    maxConcurrency: 3,
    // The real CLIs on a loaded 2-core machine: a case that fails is run once more (in CI three
    // cases failed with two agent files side by side and passed alone: Copilot's retried 500s,
    // OpenCode's question dialog, three clean claude -p exits). A case that fails twice fails.
    retry: 1,
  },
})
