import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    disableConsoleIntercept: true,
    env: {FORCE_COLOR: '0', NO_COLOR: '1'},
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
