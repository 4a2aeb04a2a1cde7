// The folder `npm run conformance:setup` installs the pinned agent CLIs into (scripts/conformance-setup.mjs):
// $CAST_CONFORMANCE_DIR, else ~/.cache/cast-conformance. test/conformance/harness/agent-bin.ts applies the same rule.
import os from 'node:os'
import path from 'node:path'

export function conformanceDir() {
  return path.resolve(process.env.CAST_CONFORMANCE_DIR || path.join(os.homedir(), '.cache', 'cast-conformance'))
}
