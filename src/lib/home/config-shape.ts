/**
 * What the config file (./config.ts) holds once validated (./config-schema.ts), and the two values
 * both need: the built-in presences and the shape of an identity. A leaf: the loader and the
 * schema import it, so neither imports the other.
 */

export interface PresenceConfig {
  readonly name: string
  /** How long `decide --wait` may block, in ms; null = indefinitely (online). */
  readonly waitBudgetMs: number | null
  readonly instructions: string
}

export interface CastConfig {
  readonly file: string
  readonly team: readonly {readonly id: string; readonly name?: string}[]
  /** The team store: its URL (or the variable holding it) and the team's name. */
  readonly teamStore?: {readonly url: string | null; readonly urlEnv: string | null; readonly name: string | null}
  readonly inbox: {readonly recencyMs: number}
  readonly presences: readonly PresenceConfig[]
  /** A command that reads the last assistant message on stdin and answers delivered/not. */
  readonly settleClassifier: readonly string[] | null
  /** How long one settle-classifier run may take (null: the 20 s default). */
  readonly settleClassifierTimeoutMs?: number | null
  /** argv templates per agent: {interactive, headless, resume}. `{prompt}`, `{id}`, `{cwd}` are filled in. */
  readonly agents: Readonly<
    Record<string, {readonly interactive?: readonly string[]; readonly headless?: readonly string[]; readonly resume?: readonly string[]}>
  >
  /** Extra or replacement screen patterns for the terminal fallback, per agent. */
  readonly screenPatterns: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>
  /** Paging (`cast notify`, `cast daemon --notify`): backends, the custom command, done and quiet notices, the burst window. */
  readonly notify?: NotifyConfig
  /** `cast hosts add`: this person's other machines, reached over ssh (docs/fleet.md), in the order added. */
  readonly hosts?: readonly HostConfig[]
  /** `cast sessions --fleet`: each host's time budget (ms) unless the host has its own. */
  readonly fleet?: {readonly budgetMs: number; readonly byDefault?: boolean}
}

export interface HostConfig {
  readonly name: string
  /** `[user@]host[:port]` as given to `cast hosts add` (an ~/.ssh/config alias works). */
  readonly target: string
  /** This host's own time budget (ms), else fleet.budget. */
  readonly budgetMs: number | null
}

export interface NotifyConfig {
  readonly backends: readonly ('auto' | 'freedesktop' | 'macos' | 'tmux' | 'bell' | 'command' | 'stdout' | 'push' | 'ntfy')[]
  readonly command: readonly string[] | null
  readonly done: 'soft' | 'normal' | 'off'
  readonly quiet: boolean
  readonly groupWindowMs: number
  /** The phone is held while a keystroke at the desk is this recent (ms). */
  readonly activeWindowMs?: number
  /** Web Push: the full text, or a count only. */
  readonly push?: {readonly content: 'full' | 'none'}
  /** ntfy: the server, the topic, a token, and cast web's HTTPS address for the action URLs. */
  readonly ntfy?: NtfyConfig | null
}

export interface NtfyConfig {
  readonly server: string
  readonly topic: string
  readonly token: string | null
  readonly actionsUrl: string | null
}

export const BUILTIN_PRESENCES: readonly PresenceConfig[] = [
  {instructions: 'A question may wait indefinitely.', name: 'online', waitBudgetMs: null},
  {instructions: 'Never block on the user. Decide, keep working, leave notes in the inbox.', name: 'away', waitBudgetMs: 0},
]

/** What an identity looks like (`CAST_USER`, an owner, a team member): 3+ characters, no spaces or commas. */
export const IDENTITY_SHAPE = /^[^\s,]{3,}$/
