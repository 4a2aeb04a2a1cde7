/**
 * Every link in the README and docs/ resolves inside the repository, and no document points at a
 * file outside it (issue 13 point 1): a reader of the package or a clone has nothing else.
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function markdownFiles(): string[] {
  const out = [path.join(REPO, 'README.md')]
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.md')) out.push(p)
    }
  }

  walk(path.join(REPO, 'docs'))
  return out
}

describe('documentation links', () => {
  for (const file of markdownFiles()) {
    const rel = path.relative(REPO, file)
    it(`${rel}: every relative link resolves inside the repository`, () => {
      const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
      const broken: string[] = []
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue
        const resolved = path.resolve(path.dirname(file), target.split('#')[0]!)
        if (!resolved.startsWith(REPO + path.sep) || !fs.existsSync(resolved)) broken.push(target)
      }

      expect(broken).toEqual([])
      expect(text).not.toMatch(/\.\.\/shared\//)
    })
  }
})
