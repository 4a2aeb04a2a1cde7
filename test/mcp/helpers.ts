/** Calls to `cast mcp` through test/mcp/client.mjs: from the test process, or from inside a fake agent. */
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {type FakeProcess, waitFor} from '../fakes/agents.js'

export const CLIENT = path.join(import.meta.dirname, 'client.mjs')

export interface Call {
  name: string
  arguments: Record<string, unknown>
}

export interface ToolOutcome {
  progress: number
  result: {isError?: boolean; content: {type: string; text: string}[]; structuredContent?: Record<string, unknown>}
}

let n = 0
function files(dir: string, calls: Call[]): {inFile: string; outFile: string} {
  const inFile = path.join(dir, `calls-${process.pid}-${++n}.json`)
  fs.writeFileSync(inFile, JSON.stringify(calls))
  return {inFile, outFile: `${inFile}.out`}
}

/** The calls from the test process itself (the server's parent is no agent). */
export function callDirect(dir: string, env: Record<string, string>, calls: Call[]): Promise<ToolOutcome[]> {
  const {inFile, outFile} = files(dir, calls)
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLIENT, inFile, outFile], {env, timeout: 180_000}, (error, _stdout, stderr) => {
      if (error) return reject(new Error(`client failed: ${error.message}\n${stderr}`))
      resolve(JSON.parse(fs.readFileSync(outFile, 'utf8')) as ToolOutcome[])
    })
  })
}

/** The calls from a child of the fake agent (its bash mode), as an agent's own MCP server would run. */
export async function callFromAgent(
  dir: string,
  fake: FakeProcess,
  calls: Call[],
  started?: (progressFile: string) => void,
): Promise<ToolOutcome[]> {
  const {inFile, outFile} = files(dir, calls)
  started?.(`${outFile}.progress`)
  const before = fake.out().length
  fake.say(`!${process.execPath} ${CLIENT} ${inFile} ${outFile}`)
  await waitFor(
    () => /\[bash exit \d+\]/.test(fake.out().slice(before)),
    180_000,
    () => fake.out().slice(before),
  )
  if (!fs.existsSync(outFile)) throw new Error(`client wrote nothing: ${fake.out().slice(before)}`)
  return JSON.parse(fs.readFileSync(outFile, 'utf8')) as ToolOutcome[]
}

export const text = (o: ToolOutcome): string => o.result.content.map((c) => c.text).join('\n')
