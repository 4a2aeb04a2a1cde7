/**
 * One file for each fast path bin/run.js takes before oclif loads (after `tsc`, from dist/): Node
 * reads an ES module graph file by file (resolve, read, compile, link: about a millisecond each
 * with a cold cache), and `cast state` runs in every agent turn. The bundle sits beside its entry,
 * so the imports left out of it (better-sqlite3, the rarer paths it loads with import()) resolve
 * from there as they do for the entry. Without esbuild the entry itself is used (bin/run.js).
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** The package whose dist/ is bundled: this checkout, or the DIR scripts/build-to builds into. */
const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'))
const ENTRIES = [
  {
    entry: 'dist/lib/state/state-fast.js',
    out: 'dist/lib/state/state-fast.bundle.js',
    // The local path (the store, better-sqlite3) is a bundle of its own, loaded only when the daemon does not answer.
    lazy: ['./state-local.js', '../views/views.js'],
  },
  {
    entry: 'dist/lib/state/state-local.js',
    out: 'dist/lib/state/state-local.bundle.js',
    // Loaded only when needed: a sync with no live ingester (every adapter), --json's views.
    lazy: ['../ingest/ingest.js', '../views/views.js'],
  },
]

let esbuild
try {
  esbuild = await import('esbuild')
} catch {
  console.error('bundle-fast: esbuild is not installed; bin/run.js uses the unbundled fast paths')
  process.exit(0)
}

/**
 * An agent's light definition (dist/adapters/<agent>/definition.js) loads the agent's whole module
 * with import('./index.js') only when the registry asks: left out of the bundle, its path made
 * relative to the bundle's folder so it resolves from there.
 */
const agentModulesLazy = (outDir) => ({
  name: 'agent-modules-lazy',
  setup(build) {
    build.onResolve({filter: /^\.\/index\.js$/}, (args) => {
      if (args.kind !== 'dynamic-import' || !args.importer.endsWith(`${path.sep}definition.js`)) return undefined
      const target = path.join(path.dirname(args.importer), 'index.js')
      let rel = path.relative(outDir, target).split(path.sep).join('/')
      if (!rel.startsWith('.')) rel = `./${rel}`
      return {external: true, path: rel}
    })
  },
})

for (const {entry, out, lazy} of ENTRIES) {
  fs.rmSync(path.join(root, out), {force: true})
  await esbuild.build({
    bundle: true,
    entryPoints: [path.join(root, entry)],
    external: ['better-sqlite3', ...lazy],
    format: 'esm',
    logLevel: 'warning',
    outfile: path.join(root, out),
    platform: 'node',
    plugins: [agentModulesLazy(path.dirname(path.join(root, out)))],
    target: 'node20',
  })
}
