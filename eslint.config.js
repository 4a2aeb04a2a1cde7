// ESLint (flat config): typescript-eslint's type-checked rules over src/, the recommended ones over
// tests, scripts and benches. Formatting is Prettier's job (.prettierrc.json), not ESLint's.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'oclif.manifest.json', 'test/fixtures/**', 'demo/**', 'test/conformance/.results/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}},
  },
  {
    // Tests poke at parsed JSON and private shapes: \`any\` is the honest type there.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {'@typescript-eslint/no-explicit-any': 'off'},
  },
  {
    files: ['**/*.js', '**/*.mjs', 'bin/**'],
    languageOptions: {globals: {console: 'readonly', process: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', performance: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', structuredClone: 'readonly', AbortController: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', fetch: 'readonly'}},
  },
)
