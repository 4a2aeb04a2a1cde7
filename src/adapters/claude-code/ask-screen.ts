/**
 * Claude Code's dialog for an AskUserQuestion of several questions or a multiple choice, read
 * from a captured pane (docs/agents/claude-code.md "Screens", seen on 2.1.328):
 *
 *    ←  ☐ Colour  ☐ Sizes  ✔ Submit  →
 *    Which sizes should it come in?
 *    ❯ 1. [ ] Small
 *         for phones
 *      2. [✔] Large
 *      …
 *      4. [ ] Type something
 *      Submit
 *    Enter to select · Tab/Arrow keys to navigate · Esc to cancel
 *
 * and, after the last tab, `Review your answers`, `● <question>` / `→ Blue` (several answers
 * joined by `, `, a label holding a quote JSON-quoted), `❯ 1. Submit answers`, `2. Cancel`. Lines are read with a frame's side borders
 * (`│`) taken off.
 */
import type {AskTabsScreen} from '../screen-types.js'

const lines = (screen: string): string[] => screen.split('\n').map((l) => l.replace(/^\s*│/, '').replace(/│\s*$/, ''))

const FOOTER = /Enter to select · /

export const claudeAskTabs: AskTabsScreen = {
  // Several answers are joined by `, `; a label holding a quote is drawn JSON-quoted
  // (`→ Small, "<img src=x onerror=\"…\">Huge"`, seen on 2.1.328).
  sameAnswer(drawn, labels) {
    const rest = (at: number, i: number): boolean => {
      if (i === labels.length) return at === drawn.length
      const sep = i === 0 ? '' : ', '
      return [labels[i]!, JSON.stringify(labels[i])].some(
        (form) => drawn.startsWith(sep + form, at) && rest(at + sep.length + form.length, i + 1),
      )
    }
    return rest(0, 0)
  },

  menu(screen, question) {
    const all = lines(screen)
    const want = question.trim()
    let start = -1
    for (let i = all.length - 1; i >= 0; i--)
      if (all[i]!.trim() === want) {
        start = i
        break
      }
    if (start < 0) return null
    const options = new Map<number, {label: string; ticked: boolean | null}>()
    let cursor: number | 'submit' | null = null
    for (const line of all.slice(start + 1)) {
      if (FOOTER.test(line)) break
      const submit = /^\s*(❯)?\s*Submit\s*$/.exec(line)
      if (submit) {
        if (submit[1]) cursor = cursor ?? 'submit'
        continue
      }
      const m = /^\s*(❯)?\s*(\d{1,2})\.\s+(?:\[([ ✔])\]\s+)?(.*?)\s*$/.exec(line)
      if (!m) continue
      const n = Number(m[2])
      if (options.has(n)) return null
      options.set(n, {label: m[4]!, ticked: m[3] === undefined ? null : m[3] === '✔'})
      if (m[1]) cursor = cursor ?? n
    }
    return {cursor, options}
  },

  review(screen) {
    const all = lines(screen)
    const at = all.findIndex((l) => /^\s*Review your answers\s*$/.test(l))
    if (at < 0) return null
    const answers: {question: string; answer: string}[] = []
    let onSubmit = false
    for (let i = at + 1; i < all.length; i++) {
      const q = /^\s*●\s+(.*?)\s*$/.exec(all[i]!)
      const a = q ? /^\s*→\s+(.*?)\s*$/.exec(all[i + 1] ?? '') : null
      if (q && a) {
        answers.push({answer: a[1]!, question: q[1]!})
        i++
        continue
      }
      if (/^\s*❯\s*1\.\s+Submit answers\s*$/.test(all[i]!)) onSubmit = true
    }
    return {answers, onSubmit}
  },

  tabs(screen) {
    const bar = lines(screen).find((l) => /^\s*←/.test(l) && /[☐☒]/.test(l) && /✔\s*Submit/.test(l))
    if (bar === undefined) return null
    const out: {header: string; answered: boolean}[] = []
    for (const m of bar.matchAll(/([☐☒])\s*(.*?)\s*(?=[☐☒✔→]|$)/g)) out.push({answered: m[1] === '☒', header: m[2]!})
    return out
  },
}
