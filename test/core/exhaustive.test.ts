/**
 * Extension points tsc checks (docs/architecture.md "Extension points tsc checks"): a member added
 * to a union of the model fails to compile at every site that consumes it, until the site handles
 * it. The test compiles src/ with the TypeScript compiler API, with src/core/model/types.ts (and
 * the screen overlay's kinds, and the notification kinds) patched in memory to carry one new
 * member each, and asserts which sites fail: each must be listed here, and each listed site must
 * fail. A site that silently accepts the new member (an if/else chain, a `default:` fallthrough, a
 * Partial map) would be missing from the errors and fail the test.
 */
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SRC = path.join(ROOT, 'src')

/** One added member per union (a work state, a reason, a bucket, a screen kind, a notification kind), each with a name found nowhere else in src. */
const PATCHES: Record<string, readonly (readonly [string, string])[]> = {
  'core/model/types.ts': [
    ["'dormant', 'idle'] as const\nexport type WorkState", "'dormant', 'idle', 'state_added_by_test'] as const\nexport type WorkState"],
    ["  'empty', // rule 8\n] as const", "  'empty', // rule 8\n  'reason_added_by_test',\n] as const"],
    ["  'idle',\n] as const\nexport type Bucket", "  'idle',\n  'bucket_added_by_test',\n] as const\nexport type Bucket"],
  ],
  'core/ingest/screen-overlay.ts': [
    ["export type ScreenKind = 'approval'", "export type ScreenKind = 'screen_added_by_test' | 'approval'"],
  ],
  'core/model/notify.ts': [
    ["export const NOTIFY_KINDS = ['approval',", "export const NOTIFY_KINDS = ['notify_added_by_test', 'approval',"],
  ],
}

/** The sites that must fail, per added member: file (under src) and the construct that fails. */
const SITES: Record<string, readonly string[]> = {
  reason_added_by_test: [
    'core/model/attention.ts REASON_RANK',
    'core/model/attention.ts ASK_OF_REASON',
    'core/model/placement.ts FILED_BY_REASON',
    'lib/ingest/classifier.ts REST_REASONS',
    'lib/notify/status.ts OUTLIVES',
  ],
  bucket_added_by_test: [
    'core/model/types.ts SECTION_TITLES',
    'core/model/notify.ts SILENT_BUCKETS',
    'core/model/tally.ts FILED_BUCKETS',
    'core/model/tally.ts tally switch',
  ],
  state_added_by_test: [
    'core/model/placement.ts placeSession',
    'core/model/tally.ts tally',
    'lib/fleet/render.ts MARKERS',
    'lib/inbox/app.ts makeStyle',
    'lib/views/style.ts colours',
    'lib/views/views.ts MARKERS',
  ],
  screen_added_by_test: ['core/ingest/screen-overlay.ts KINDS', 'core/ingest/screen-overlay.ts overlay switch'],
  notify_added_by_test: ['core/model/notify.ts sentence switch', 'core/model/notify.ts groupSentence switch'],
}

const sources = (dir: string): string[] =>
  fs
    .readdirSync(dir, {withFileTypes: true})
    .flatMap((e) =>
      e.isDirectory()
        ? path.join(dir, e.name) === path.join(SRC, 'web')
          ? []
          : sources(path.join(dir, e.name))
        : e.name.endsWith('.ts')
          ? [path.join(dir, e.name)]
          : [],
    )

function patched(file: string, text: string): string {
  let out = text
  for (const [from, to] of PATCHES[path.relative(SRC, file)] ?? []) {
    if (!out.includes(from)) throw new Error(`patch not found in ${file}: ${from}`)
    out = out.replace(from, to)
  }

  return out
}

/** The construct an error sits in: the innermost named function or const, and "switch" inside a switch. */
function siteOf(sf: ts.SourceFile, pos: number): string {
  let found = '?'
  const visit = (node: ts.Node, label: string): void => {
    if (pos < node.getStart(sf) || pos >= node.getEnd()) return
    const named = node as ts.Node & {name?: ts.Node}
    if (
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isVariableDeclaration(node)) &&
      named.name &&
      ts.isIdentifier(named.name)
    )
      label = named.name.text
    if (ts.isSwitchStatement(node)) label = `${label} switch`
    found = label
    ts.forEachChild(node, (c) => visit(c, label))
  }

  visit(sf, '?')
  return `${path.relative(SRC, sf.fileName)} ${found}`
}

describe('a member added to a union of the model', () => {
  it('fails tsc at every site that consumes it, and only there', {timeout: 180_000}, () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(ROOT, 'tsconfig.json'),
      {noEmit: true},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
        },
      },
    )!
    const host = ts.createCompilerHost(config.options)
    const read = host.readFile.bind(host)
    host.readFile = (file) => {
      const text = read(file)
      return text !== undefined && file.startsWith(SRC) ? patched(file, text) : text
    }

    const program = ts.createProgram({host, options: config.options, rootNames: sources(SRC)})
    const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error)
    const got: Record<string, string[]> = Object.fromEntries(Object.keys(SITES).map((k) => [k, []]))
    const stray: string[] = []
    for (const d of errors) {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n')
      const where = d.file && d.start !== undefined ? siteOf(d.file, d.start) : '(no file)'
      const member = Object.keys(SITES).find((m) => text.includes(m))
      if (member === undefined) stray.push(`${where}: ${text}`)
      else got[member]!.push(where)
    }

    expect(stray).toEqual([])
    for (const [member, sites] of Object.entries(SITES)) expect([...new Set(got[member])].sort(), member).toEqual([...sites].sort())
  })
})
