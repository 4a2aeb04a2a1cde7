import {Args} from '@oclif/core'

import {BaseCommand} from '../lib/base-command.js'

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
        flags: Object.entries(c.flags ?? {}).flatMap(([name, f]) => [`--${name}`, ...(f.char ? [`-${f.char}`] : [])]),
        words: c.id.split(':'),
      }))
      .sort((a, b) => a.words.join(' ').localeCompare(b.words.join(' ')))
    // For each command path typed so far ('' for none): the next words, and the flags of that command.
    const next = new Map<string, Set<string>>()
    const flags = new Map<string, string[]>()
    for (const c of commands) {
      for (let i = 0; i < c.words.length; i++) {
        const key = c.words.slice(0, i).join(' ')
        if (!next.has(key)) next.set(key, new Set())
        next.get(key)!.add(c.words[i]!)
      }

      flags.set(c.words.join(' '), [...new Set([...c.flags, '--help'])])
    }

    const cases = [...new Set([...next.keys(), ...flags.keys()])].sort()
    const words = (key: string): string => [...(next.get(key) ?? [])].join(' ')
    const flagWords = (key: string): string => (flags.get(key) ?? []).join(' ')
    const script = args.shell === 'fish' ? fish(cases, words, flagWords) : bash(cases, words, flagWords, args.shell === 'zsh')
    // --json: the script as a string, for an installer; errors in the envelope as every command.
    if (!this.jsonEnabled()) process.stdout.write(script)
    return {script, shell: args.shell}
  }
}

function bash(cases: string[], words: (k: string) => string, flags: (k: string) => string, zsh: boolean): string {
  const arms = cases.map((k) => `    '${k}') w='${words(k)}'; f='${flags(k)}' ;;`).join('\n')
  return `${zsh ? 'autoload -U +X bashcompinit && bashcompinit\n' : ''}# cast completion (${zsh ? 'zsh' : 'bash'}): eval "$(cast completion ${zsh ? 'zsh' : 'bash'})"
_cast_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" i w f
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) _cast_known "\${path:+$path }\${COMP_WORDS[i]}" && path="\${path:+$path }\${COMP_WORDS[i]}" ;; esac
  done
  _cast_lists "$path"
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$f" -- "$cur")); else COMPREPLY=($(compgen -W "$w" -- "$cur")); fi
}
_cast_known() { _cast_lists "$1"; [[ -n "$w$f" ]]; }
_cast_lists() {
  w=''; f=''
  case "$1" in
${arms}
  esac
}
complete -F _cast_complete cast
`
}

function fish(cases: string[], words: (k: string) => string, flags: (k: string) => string): string {
  const lines = ['# cast completion (fish): cast completion fish > ~/.config/fish/completions/cast.fish', 'complete -c cast -f']
  for (const k of cases) {
    const cond = k === '' ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${k.split(' ').at(-1)}`
    for (const w of words(k).split(' ').filter(Boolean)) lines.push(`complete -c cast -n '${cond}' -a '${w}'`)
    for (const f of flags(k).split(' ').filter(Boolean)) {
      if (k === '') continue
      lines.push(
        f.startsWith('--') ? `complete -c cast -n '${cond}' -l '${f.slice(2)}'` : `complete -c cast -n '${cond}' -s '${f.slice(1)}'`,
      )
    }
  }

  return lines.join('\n') + '\n'
}
