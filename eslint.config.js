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
    // `const {a: _a, ...rest} = o` is how the code drops a key from a copy: the dropped name is unused by design.
    rules: {'@typescript-eslint/no-unused-vars': ['error', {ignoreRestSiblings: true}]},
  },
  {
    // The harness registers a cleanup that reads `pane` before the pane is opened (so a failed open is still cleaned up): the `let` is deliberate.
    files: ['test/conformance/**/*.ts'],
    rules: {'prefer-const': ['error', {ignoreReadBeforeAssign: true}]},
  },
  {
    // Tests poke at parsed JSON and private shapes: `any` is the honest type there.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {'@typescript-eslint/no-explicit-any': 'off'},
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs', 'bin/**'],
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
      },
    },
  },
)
