/**
 * `npm run schema`: write the JSON Schema of every shape of the JSON contract into docs/schema/
 * (src/core/model/wire-schema.ts), and remove a file of a shape that is gone.
 * test/schema/real-output.test.ts fails while docs/schema/ differs from what this writes.
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {schemaFileText, wireJsonSchemas} from '../src/core/model/wire-schema.js'

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/schema')
fs.mkdirSync(dir, {recursive: true})
const schemas = wireJsonSchemas()
const names = new Set(Object.keys(schemas).map((n) => `${n}.json`))
for (const f of fs.readdirSync(dir)) if (f.endsWith('.json') && !names.has(f)) fs.rmSync(path.join(dir, f))
for (const [name, schema] of Object.entries(schemas)) fs.writeFileSync(path.join(dir, `${name}.json`), schemaFileText(schema))
console.log(`docs/schema: ${names.size} files`)
