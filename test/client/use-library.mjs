/** A program using the library as a user would (`import … from 'cast-inbox'`): argv[2] is the session to act on. */
import {CastError, openInbox} from 'cast-inbox'

const inbox = await openInbox()
const out = {}
out.sessions = (await inbox.sessions()).sessions.map((s) => s.id)
out.explain = (await inbox.explain(process.argv[2])).session.id
out.declared = (await inbox.declare({session: process.argv[2], status: 'done', text: 'Shipped from the library'})).session.state
try {
  await inbox.explain('no-such-session')
} catch (error) {
  out.error = {code: error.code, exit: error.exit, isCastError: error instanceof CastError}
}
inbox.close()
console.log(JSON.stringify(out))
