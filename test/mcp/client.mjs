#!/usr/bin/env node
/**
 * An MCP client over stdio, the SDK's own, for test/mcp: it starts `cast mcp` (the built CLI) as
 * its child, makes the calls in the JSON file argv[2] ([{name, arguments}]) in order, and writes
 * [{result, progress}] to argv[3] (each progress notification as a line of argv[3].progress, at once). Run from inside a fake agent, the server's ancestry is that agent's.
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'

const root = process.env.CAST_TEST_ROOT || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const calls = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const transport = new StdioClientTransport({
  args: [path.join(root, 'bin', 'run.js'), 'mcp'],
  command: process.execPath,
  env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)),
  stderr: 'inherit',
})
const client = new Client({name: 'cast-test', version: '1'})
await client.connect(transport)
const out = []
for (const call of calls) {
  let progress = 0
  const result = await client.callTool(call, undefined, {
    maxTotalTimeout: 120_000,
    onprogress: () => {
      progress++
      fs.appendFileSync(`${process.argv[3]}.progress`, `${call.name}\n`)
    },
    resetTimeoutOnProgress: true,
    timeout: 120_000,
  })
  out.push({progress, result})
}

await client.close()
fs.writeFileSync(process.argv[3], JSON.stringify(out))
