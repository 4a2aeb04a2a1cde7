import {BaseCommand} from '../lib/cli/base-command.js'

/** `cast version --json`: package, version, Node and platform. */
export interface VersionJson {
  arch: string
  name: string
  node: string
  platform: string
  version: string
}

export default class Version extends BaseCommand {
  static override description = 'The same line as cast --version (and cast -v): package, version, platform and Node.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override summary = "Print cast's version."

  async run(): Promise<VersionJson> {
    await this.parse(Version)
    const info: VersionJson = {
      arch: this.config.arch,
      name: this.config.name,
      node: process.version,
      platform: this.config.platform,
      version: this.config.version,
    }
    if (!this.jsonEnabled()) this.log(this.config.userAgent)
    return info
  }
}
