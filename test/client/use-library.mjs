/** A program using the library as a user would (`import … from 'cast-inbox'`): argv[2] is the session to act on. */
import {CastError, openInbox, SCHEMA_VERSION} from 'cast-inbox'

const inbox = await openInbox()
const out = {}
const listing = await inbox.sessions()
out.sessions = listing.sessions.map((s) => s.id)
const explained = await inbox.explain(process.argv[2])
out.explain = explained.session.id
out.schema = [SCHEMA_VERSION, listing.schema, explained.schema]
out.declared = (await inbox.declare({session: process.argv[2], status: 'done', text: 'Shipped from the library'})).session.state
try {
  await inbox.explain('no-such-session')
} catch (error) {
  out.error = {code: error.code, exit: error.exit, isCastError: error instanceof CastError}
}
inbox.close()
console.log(JSON.stringify(out))
