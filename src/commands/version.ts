import {BaseCommand} from '../lib/base-command.js'

export default class Version extends BaseCommand {
  static override description = 'The same line as cast --version (and cast -v): package, version, platform and Node.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override summary = "Print cast's version."

  async run(): Promise<{name: string; version: string; node: string; platform: string; arch: string}> {
    await this.parse(Version)
    const info = {arch: this.config.arch, name: this.config.name, node: process.version, platform: this.config.platform, version: this.config.version}
    if (!this.jsonEnabled()) this.log(this.config.userAgent)
    return info
  }
}
