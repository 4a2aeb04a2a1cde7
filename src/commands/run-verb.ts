import {Args} from '@oclif/core'

import {BaseCommand} from '../lib/cli/base-command.js'
import {EXIT} from '../lib/base/exit-codes.js'

/** Bound on the input read from stdin (a message of cast send is far below it). */
const MAX_INPUT_BYTES = 8 * 2 ** 20

/**
 * The host's end of a fleet verb (src/lib/fleet/verb.ts `runOnHost`): the verb's typed input comes
 * as JSON on stdin, runs through this machine's verb runner as its own session (never sent on to
 * another host), and the runner's result is printed as one JSON object; the exit code is in it.
 */
export default class RunVerb extends BaseCommand {
  static override args = {
    verb: Args.string({description: 'A verb of the runner (src/lib/verbs/index.ts).', required: true}),
  }
  static override description =
    'Reads the verb input as JSON on stdin, runs it through the verb runner here, prints its result as JSON. Used over ssh by the fleet (docs/fleet.md).'
  static override enableJsonFlag = false
  static override hidden = true
  static override summary = 'Run one verb of the runner from JSON on stdin (used by the fleet).'

  async run(): Promise<void> {
    const {args} = await this.parse(RunVerb)
    const {isRunnerVerb, runVerbData} = await import('../lib/verbs/index.js')
    if (!isRunnerVerb(args.verb)) this.fail(`Not a verb of the runner: ${JSON.stringify(args.verb.slice(0, 40))}`, EXIT.USAGE)
    const chunks: Buffer[] = []
    let bytes = 0
    for await (const c of process.stdin) {
      bytes += (c as Buffer).length
      if (bytes > MAX_INPUT_BYTES) this.fail(`The verb input is over ${MAX_INPUT_BYTES} bytes.`, EXIT.USAGE)
      chunks.push(c as Buffer)
    }

    let input: unknown
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      this.fail('The verb input on stdin is not JSON.', EXIT.USAGE)
    }

    const store = await this.openStore()
    const r = await runVerbData({clock: this.clock(), env: this.env, fleet: false, me: this.me, store, team: true}, args.verb, input)
    process.stdout.write(`${JSON.stringify(r)}\n`)
  }
}
