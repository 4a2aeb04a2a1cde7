import {Args, type Command} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'

const SHELLS = ['bash', 'zsh', 'fish'] as const

export default class Completion extends BaseCommand {
  static override args = {shell: Args.string({description: 'bash, zsh or fish.', options: [...SHELLS], required: true})}
  static override description = `Prints a completion script for commands, subcommands and flags. Load it from your shell's startup file:

  bash   echo 'eval "$(cast completion bash)"' >> ~/.bashrc
  zsh    echo 'eval "$(cast completion zsh)"' >> ~/.zshrc
  fish   cast completion fish > ~/.config/fish/completions/cast.fish`
  static override examples = ['<%= config.bin %> <%= command.id %> bash', '<%= config.bin %> <%= command.id %> fish']
  static override summary = 'Shell completion for bash, zsh and fish.'

  async run(): Promise<{shell: string; script: string}> {
    const {args} = await this.parse(Completion)
    const commands = this.config.commands
      .filter((c) => !c.hidden)
      .map((c) => ({
        flags: Object.entries(c.flags ?? {})
          .filter(([, f]) => !f.hidden)
          .flatMap(([name, f]) => [`--${name}`, ...(f.char ? [`-${f.char}`] : [])]),
        values: valueKinds(c),
        words: c.id.split(':'),
      }))
      .sort((a, b) => a.words.join(' ').localeCompare(b.words.join(' ')))
    // For each command path typed so far ('' for none): the next words, and the flags of that command.
    const next = new Map<string, Set<string>>()
    const flags = new Map<string, string[]>()
    const values = new Map<string, {args: string; flags: string}>()
    for (const c of commands) {
      for (let i = 0; i < c.words.length; i++) {
        const key = c.words.slice(0, i).join(' ')
        if (!next.has(key)) next.set(key, new Set())
        next.get(key)!.add(c.words[i]!)
      }

      flags.set(c.words.join(' '), [...new Set([...c.flags, '--help'])])
      values.set(c.words.join(' '), c.values)
    }

    const cases = [...new Set([...next.keys(), ...flags.keys()])].sort()
    const words = (key: string): string => [...(next.get(key) ?? [])].join(' ')
    const flagWords = (key: string): string => (flags.get(key) ?? []).join(' ')
    const kinds = (key: string): {args: string; flags: string} => values.get(key) ?? {args: '', flags: ''}
    const script = args.shell === 'fish' ? fish(cases, words, flagWords, kinds) : bash(cases, words, flagWords, kinds, args.shell === 'zsh')
    // --json: the script as a string, for an installer; errors in the envelope as every command.
    if (!this.jsonEnabled()) process.stdout.write(script)
    return {script, shell: args.shell}
  }
}

type Loadable = Command.Loadable

/**
 * What each argument and value flag of a command completes to: a static list (`=a,b,c`), or a
 * kind `cast __complete` answers (src/lib/cli/complete-values.ts). Positional kinds in order, `+` when
 * the last one repeats (a command that takes several sessions); flags as `--name=kind`.
 */
function valueKinds(c: Loadable): {args: string; flags: string} {
  const kindOfArg = (name: string, a: {options?: readonly string[]}): string => {
    if (a.options) return `=${a.options.filter((o) => !o.includes('_')).join(',')}`
    if (name === 'session') return 'sessions'
    if (c.id.startsWith('hooks:') && name === 'agent') return 'hook-agents'
    if (c.id === 'presence' && name === 'name') return 'presences'
    return '-'
  }

  const args = Object.entries(c.args ?? {}).map(([name, a]) => kindOfArg(name, a))
  // A command that takes sessions as extra words (strict = false, no declared argument): all sessions.
  if (c.strict === false && args.length === 0) args.push('sessions')
  if (c.strict === false) args.push('+')
  const flags = Object.entries(c.flags ?? {}).flatMap(([name, f]) => {
    if (f.type !== 'option' || f.hidden) return []
    const kind = f.options
      ? `=${f.options.filter((o) => !o.includes('_')).join(',')}`
      : name === 'state' || name === 'until'
        ? 'states'
        : name === 'agent'
          ? 'agents'
          : name === 'session'
            ? 'sessions'
            : null
    return kind === null ? [] : [`--${name}=${kind}`, ...(f.char ? [`-${f.char}=${kind}`] : [])]
  })
  return {args: args.join(' '), flags: flags.join(' ')}
}

type Kinds = (k: string) => {args: string; flags: string}

function bash(cases: string[], words: (k: string) => string, flags: (k: string) => string, kinds: Kinds, zsh: boolean): string {
  const arms = cases.map((k) => `    '${k}') w='${words(k)}'; f='${flags(k)}'; a='${kinds(k).args}'; v='${kinds(k).flags}' ;;`).join('\n')
  return `${zsh ? 'autoload -U +X bashcompinit && bashcompinit\n' : ''}# cast completion (${zsh ? 'zsh' : 'bash'}): eval "$(cast completion ${zsh ? 'zsh' : 'bash'})"
# Values (states, agents, session ids, hook agents, presences) come from \`cast __complete KIND PREFIX\`.
_cast_complete() {
  [[ -n "\${ZSH_VERSION-}" ]] && setopt localoptions shwordsplit ksharrays
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" i w f a v k n=0 skip="" kind="" word cands="" pre=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    case "$word" in
      -*=*) ;;
      -*) _cast_lists "$path"; _cast_flag_kind "$word" && skip=1 ;;
      *) if (( n == 0 )) && _cast_known "\${path:+$path }$word"; then path="\${path:+$path }$word"; else n=$((n + 1)); fi ;;
    esac
  done
  (( COMP_CWORD > 1 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  _cast_lists "$path"
  if [[ "$cur" == --*=* ]]; then
    _cast_flag_kind "\${cur%%=*}" && kind="$k"; pre="\${cur%%=*}="; cur="\${cur#*=}"
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$f" -- "$cur")); return
  elif [[ "$prev" == -* && "$prev" != *=* ]] && _cast_flag_kind "$prev"; then
    kind="$k"
  else
    _cast_arg_kind $((n + 1)); kind="$k"
    (( n == 0 )) && cands="$w"
  fi
  case "$kind" in
    =*) cands="$cands \${kind#=}" ;;
    ''|-) ;;
    *) cands="$cands $(cast __complete "$kind" "$cur" 2>/dev/null | cut -f1)" ;;
  esac
  COMPREPLY=($(compgen -W "\${cands//,/ }" -- "$cur"))
  if [[ -n "$pre" ]]; then for ((i = 0; i < \${#COMPREPLY[@]}; i++)); do COMPREPLY[i]="$pre\${COMPREPLY[i]}"; done; fi
}
# The kind of value flag $1 takes (in $k); false for a flag that takes none.
_cast_flag_kind() {
  local x; k=""
  for x in $v; do [[ "\${x%%=*}" == "$1" ]] && k="\${x#*=}" && return 0; done
  return 1
}
# The kind of positional argument number $1 (in $k); the last one repeats when a list ends in +.
_cast_arg_kind() {
  local x i=0 last="" rep=""; k=""
  for x in $a; do
    if [[ "$x" == "+" ]]; then rep=1; continue; fi
    i=$((i + 1)); last="$x"
    (( i == $1 )) && k="$x" && return 0
  done
  [[ -n "$rep" ]] && k="$last"
  return 0
}
_cast_known() { _cast_lists "$1"; [[ -n "$w$f" ]]; }
_cast_lists() {
  w=''; f=''; a=''; v=''
  case "$1" in
${arms}
  esac
}
complete -F _cast_complete cast
`
}

function fish(cases: string[], words: (k: string) => string, flags: (k: string) => string, kinds: Kinds): string {
  const lines = [
    '# cast completion (fish): cast completion fish > ~/.config/fish/completions/cast.fish',
    '# Values come from `cast __complete KIND PREFIX` (value, a tab, a description).',
    'complete -c cast -f',
  ]
  const values = (kind: string): string | null =>
    kind.startsWith('=')
      ? `'${kind.slice(1).split(',').join(' ')}'`
      : kind === '-' || kind === '+' || kind === ''
        ? null
        : `'(cast __complete ${kind} (commandline -ct))'`
  for (const k of cases) {
    const cond = k === '' ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${k.split(' ').at(-1)}`
    for (const w of words(k).split(' ').filter(Boolean)) lines.push(`complete -c cast -n '${cond}' -a '${w}'`)
    if (k === '') continue
    const {args, flags: valued} = kinds(k)
    const byFlag = new Map(
      valued
        .split(' ')
        .filter(Boolean)
        .map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)] as const),
    )
    for (const f of flags(k).split(' ').filter(Boolean)) {
      const kind = byFlag.get(f)
      const takes = kind === undefined ? '' : ` -r -a ${values(kind) ?? "''"}`
      lines.push(
        f.startsWith('--')
          ? `complete -c cast -n '${cond}' -l '${f.slice(2)}'${takes}`
          : `complete -c cast -n '${cond}' -s '${f.slice(1)}'${takes}`,
      )
    }

    // Arguments: every kind the command's arguments take (fish does not count positions here).
    for (const kind of new Set(args.split(' ').filter(Boolean))) {
      const a = values(kind)
      if (a !== null) lines.push(`complete -c cast -n '${cond}' -a ${a}`)
    }
  }

  return lines.join('\n') + '\n'
}
