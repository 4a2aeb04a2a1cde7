/**
 * What a session holds summed over its subagent tree (src/core/model/holds.ts sumTree): the
 * descendants of the sessions that have children, read with one recursive statement; a session
 * without children is its own tree and costs no query.
 */
import {holdsOf, type HoldsNode, sumTree, type TreeHolds} from '../model/holds.js'
import type {SessionFacts, WorkState} from '../model/types.js'
import {parseJson, type Row, str} from './rows.js'
import type {Conn} from './conn.js'

/** Deeper links than this are not followed (seed 001 caps a tree at depth three). */
const MAX_DEPTH = 8

export interface TreeRoot {
  readonly id: string
  readonly parentId: string | null
  readonly state: WorkState
  readonly facts: Pick<SessionFacts, 'holds'>
  readonly childIds: readonly string[]
}

export function treeHolds(store: Conn, roots: readonly TreeRoot[]): Map<string, TreeHolds> {
  const out = new Map<string, TreeHolds>()
  const withKids = roots.filter((r) => r.childIds.length > 0).map((r) => r.id)
  const nodes = new Map<string, HoldsNode[]>()
  if (withKids.length > 0) {
    // CROSS JOIN keeps the tree outside: each node's row is looked up by id (a plain JOIN let the
    // planner scan every session's row, facts and all, against the tree).
    const rows = store
      .q(
        `WITH RECURSIVE tree (root, id, depth) AS (
           SELECT value, value, 0 FROM json_each(?)
           UNION ALL SELECT t.root, s.id, t.depth + 1 FROM sessions s JOIN tree t ON s.parent_id = t.id WHERE t.depth < ${MAX_DEPTH}
         )
         SELECT t.root, s.id, s.parent_id, s.state, s.facts -> '$.holds' AS holds FROM tree t CROSS JOIN sessions s ON s.id = t.id`,
      )
      .all(JSON.stringify(withKids)) as Row[]
    for (const r of rows) {
      const root = String(r.root)
      const holds = holdsOf({holds: parseJson<unknown>(r.holds, null)} as Partial<SessionFacts>)
      const node: HoldsNode = {holds, id: String(r.id), parentId: str(r.parent_id), state: str(r.state) as WorkState | null}
      nodes.set(root, [...(nodes.get(root) ?? []), node])
    }
  }

  for (const r of roots) {
    const own: HoldsNode = {holds: holdsOf(r.facts), id: r.id, parentId: null, state: r.state}
    const list = nodes.get(r.id)
    out.set(r.id, sumTree(r.id, list === undefined ? [own] : list.map((n) => (n.id === r.id ? {...n, parentId: null} : n))))
  }

  return out
}
