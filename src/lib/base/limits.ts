/**
 * Limits on what a command line may carry, shared by the oclif commands (base-command.ts) and the
 * answers bin/run.js gives before oclif loads (state-fast.ts, sessions-fast.ts). Imports nothing,
 * so the fast paths stay light.
 */

/** The longest text any argument or flag may carry (a message for send/schedule is at most this too). */
export const MAX_TEXT_ARG = 65_536
