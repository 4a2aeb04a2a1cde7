/**
 * The package as a user installs it (issue 13 point 1): `npm pack` of the built CLI, installed
 * globally into a temporary prefix, then `cast --version` and `cast demo` from that prefix with a
 * clean environment. The install skips install scripts and takes better-sqlite3's compiled addon
 * from this checkout (same Node ABI): compiling it again costs two minutes and is what `npm ci`
 * already does; everything else (files, bin, manifest, dependency resolution) is the real thing.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-install-'))
afterAll(() => fs.rmSync(dir, {force: true, recursive: true}))

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: {...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false'},
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 240_000,
  })
}

describe('npm pack, then a global install', () => {
  const stage = path.join(dir, 'stage')
  const prefix = path.join(dir, 'prefix')
  let tarball = ''

  it('packs what a user needs and nothing of the checkout', () => {
    fs.mkdirSync(stage)
    for (const f of ['package.json', 'README.md', 'LICENSE', 'bin', 'demo', 'docs', 'examples'])
      fs.cpSync(path.join(REPO, f), path.join(stage, f), {recursive: true})
    for (const f of ['dist', 'oclif.manifest.json']) fs.cpSync(path.join(ROOT, f), path.join(stage, f), {recursive: true})
    const out = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], stage)
    const [info] = JSON.parse(out) as {filename: string; name: string; files: {path: string}[]}[]
    tarball = path.join(dir, info!.filename)
    const files = info!.files.map((f) => f.path)
    expect(info!.name).toBe('cast-inbox')
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'bin/run.js',
        'bin/cast-hook',
        'oclif.manifest.json',
        'dist/commands/sessions.js',
        'docs/agents.md',
      ]),
    )
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('node_modules/'))).toEqual([])
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, any>
    expect(pkg.bin).toEqual({cast: './bin/run.js'})
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\//)
    expect(pkg.license).toBe('MIT')
  })

  it('installs globally; cast --version and cast demo run from the prefix with a clean environment', () => {
    npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', '--prefer-offline', tarball], dir)
    const installed = path.join(prefix, 'lib', 'node_modules', 'cast-inbox')
    fs.cpSync(path.join(REPO, 'node_modules', 'better-sqlite3', 'build'), path.join(installed, 'node_modules', 'better-sqlite3', 'build'), {
      recursive: true,
    })
    const home = path.join(dir, 'home')
    fs.mkdirSync(home)
    const env = {HOME: home, NO_COLOR: '1', PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`}
    const version = execFileSync('cast', ['--version'], {encoding: 'utf8', env})
    expect(version).toMatch(/^cast-inbox\/\d+\.\d+\.\d+ /)
    const demo = execFileSync('cast', ['demo'], {encoding: 'utf8', env, timeout: 120_000})
    expect(demo).toMatch(/needs input \d+ · done \d+ · working \d+/)
    expect(demo).toContain('QUESTIONS')
  })
})
