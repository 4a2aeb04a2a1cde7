import {BaseCommand} from '../lib/cli/base-command.js'
import {exampleMcpAgent, mcpAgentNames} from '../lib/agents/hooks/specs.js'

export default class Mcp extends BaseCommand {
  static override description = `Serves cast's tools to an agent over MCP (stdio): the agent CLI starts it from its MCP
configuration (cast hooks install <agent> --mcp adds it for ${mcpAgentNames()}) and calls:
  declare_state    its own session's state (found from this process's ancestry, as cast state finds it)
  ask_decision     a decision card on its own session; wait_for_answer blocks until a person answers
  list_sessions    the inbox, as cast sessions --json;  session: one, as cast explain --json
  send_to_session  a message into another session (an exact id), as cast send
  schedule, wait   as cast schedule and cast wait
Every result is the JSON the CLI prints with --json; every refusal one error naming the exit code.
See docs/mcp.md.`
  static override enableJsonFlag = false
  static override examples = [
    '<%= config.bin %> <%= command.id %>      # started by the agent, not by hand',
    {
      command: `<%= config.bin %> hooks install ${exampleMcpAgent()} --mcp --dry-run`,
      description: "What adding cast's MCP server to the agent's configuration would change.",
    },
  ]
  static override summary = 'Serve cast to an agent as a stdio MCP server.'

  async run(): Promise<void> {
    await this.parse(Mcp)
    const {serveMcp} = await import('../lib/mcp/server.js')
    await serveMcp(this.env, this.config.version)
  }
}
