import {defineConfig} from 'vitest/config'

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
  },
})
