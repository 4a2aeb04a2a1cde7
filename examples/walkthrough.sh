#!/bin/sh
# Seed 000's walkthrough, end to end, against the built CLI over a temporary HOME:
#
#   1. a Claude Code session asks a question          → Questions
#   2. cast snooze SESSION --for 1h                   → Snoozed
#   3. an hour later, cron runs cast snooze sweep     → Needs Input (snooze_expired)
#   4. cast own SESSION ana@example.com               → leaves my inbox, lands in Ana's, question included
#   5. Ana runs cast kill SESSION                     → Killed, one "gone" line on cast sessions -w --json
#   6. Ana runs cast undo                             → the card is back (the agent stays stopped)
#
# The "agent" is a stand-in: a real process group (sh + two sleeps) that Claude Code's process
# registry (~/.claude/sessions/<pid>.json) names as the session's process, next to a real-format
# transcript whose last message is an AskUserQuestion. Every step checks what cast says and stops
# with a non-zero exit at the first surprise.
#
# Usage: examples/walkthrough.sh        (after npm run build; needs node and Linux /proc)
#   CAST_BIN=path/to/bin/run.js   the CLI to run (default: this checkout's bin/run.js)
#   WALK_DIR=DIR                  keep everything in DIR (default: a temp dir, removed at the end)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CAST_BIN=${CAST_BIN:-"$here/../bin/run.js"}
if [ -n "${WALK_DIR:-}" ]; then dir=$WALK_DIR; keep=1; else dir=$(mktemp -d); keep=0; fi
mkdir -p "$dir/home" "$dir/project"

export HOME="$dir/home" CAST_HOME="$dir/cast" XDG_CONFIG_HOME="$dir/home/.config" NO_COLOR=1
export CAST_USER=me@example.com
ANA=ana@example.com
PROJECT="$dir/project"
SESSION=5e55a0de-0000-4000-8000-00000000c0de
QUESTION='Use the Stripe test keys, or mock the payment gateway?'
agent_pid=''
watch_pid=''

cleanup() {
  [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null || true
  [ -n "$agent_pid" ] && kill -KILL -- "-$agent_pid" 2>/dev/null || true
  [ "$keep" = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM

cast() { node "$CAST_BIN" "$@"; }
say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
# js EXPR: evaluate EXPR over the JSON on stdin (bound to d) and print it.
js() {
  node -e 'let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => {
    const v = new Function("d", "return (" + process.argv[1] + ")")(JSON.parse(s))
    console.log(typeof v === "string" ? v : JSON.stringify(v))
  })' "$1"
}
# check WHAT GOT WANT
check() {
  if [ "$2" = "$3" ]; then printf '✓ %s: %s\n' "$1" "$2"; else printf '✗ %s: got %s, wanted %s\n' "$1" "$2" "$3"; exit 1; fi
}
# row AS: my session's row in AS's `cast sessions --json` (null when not listed)
row() {
  CAST_USER=$1 cast sessions --json | js "d.sessions.find((s) => s.native_id === '$SESSION') ?? null"
}
field() { printf '%s' "$1" | js "$2"; }
# Is any process of the agent's group still running (zombies do not count)?
group_running() {
  for p in $(ps -e -o pid= -o pgid= -o stat= | awk -v g="$agent_pid" '$2 == g && $3 !~ /^Z/ {print $1}'); do return 0; done
  return 1
}

# The clock: every cast command reads CAST_NOW, so "an hour later" needs no waiting.
T0=$(node -e 'console.log(new Date(Math.floor(Date.now() / 1000) * 1000).toISOString())')
T1=$(node -e 'console.log(new Date(Date.parse(process.argv[1]) + 3600e3 + 60e3).toISOString())' "$T0")
export CAST_NOW=$T0

# A team of two, so `cast own` checks who it hands off to.
mkdir -p "$CAST_HOME"
printf '{"team": ["%s", {"id": "%s", "name": "ana"}]}\n' "$CAST_USER" "$ANA" > "$CAST_HOME/config.json"

# ---- the stand-in agent: a process group, its registry entry, and its transcript --------------
agent_pid=$(node -e '
  const {spawn} = require("node:child_process")
  const c = spawn("sh", ["-c", "sleep 600 & sleep 600"], {detached: true, stdio: "ignore"})
  c.unref()
  console.log(c.pid)
')
node -e '
  const fs = require("node:fs"), path = require("node:path")
  const [home, cwd, sid, question, now, pid] = process.argv.slice(1)
  // When the process started (/proc), so cast can tell it from a reused pid.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const boot = Number(/^btime (\d+)/m.exec(fs.readFileSync("/proc/stat", "utf8"))[1]) * 1000
  const startedAt = boot + Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]) * 10
  fs.mkdirSync(path.join(home, ".claude", "sessions"), {recursive: true})
  fs.writeFileSync(path.join(home, ".claude", "sessions", `${pid}.json`),
    JSON.stringify({pid: Number(pid), sessionId: sid, cwd, startedAt, status: "waiting", waitingFor: "dialog open"}))
  const at = (s) => new Date(Date.parse(now) - 120e3 + s * 1000).toISOString()
  const base = {cwd, isSidechain: false, sessionId: sid, userType: "external", version: "2.1.100"}
  const lines = [
    {...base, type: "user", uuid: "u1", parentUuid: null, timestamp: at(0),
     message: {role: "user", content: "The checkout test is flaky: fix it"}},
    {...base, type: "assistant", uuid: "a1", parentUuid: "u1", timestamp: at(30),
     message: {id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
       content: [{type: "tool_use", id: "toolu_q1", name: "AskUserQuestion", input: {questions: [{question}]}}]}},
  ]
  const file = path.join(home, ".claude", "projects", cwd.replace(/[^a-zA-Z0-9-]/g, "-"), `${sid}.jsonl`)
  fs.mkdirSync(path.dirname(file), {recursive: true})
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
' "$HOME" "$PROJECT" "$SESSION" "$QUESTION" "$T0" "$agent_pid"
echo "stand-in agent: process group $agent_pid, Claude Code session $SESSION"

# ---- 1 ------------------------------------------------------------------------------------------
say "1. A Claude Code session asks a question → Questions"
run cast sessions
r=$(row "$CAST_USER")
ID=$(field "$r" d.short_id)
check "bucket" "$(field "$r" d.bucket)" questions
check "state" "$(field "$r" '`${d.state}:${d.reason}`')" needs_input:question
check "live pid" "$(field "$r" d.pid)" "$agent_pid"

# ---- 2 ------------------------------------------------------------------------------------------
say "2. Not now: snooze it for an hour → Snoozed"
run cast snooze "$ID" --for 1h
r=$(row "$CAST_USER")
check "bucket" "$(field "$r" d.bucket)" snoozed
check "state" "$(field "$r" '`${d.state}:${d.reason}`')" dormant:snoozed

# ---- 3 ------------------------------------------------------------------------------------------
say "3. An hour later cron runs the sweep → Needs Input"
export CAST_NOW=$T1
run cast snooze sweep
woken=$(cast snooze sweep --json | js 'd.woken.length')
check "a second sweep wakes nothing" "$woken" 0
r=$(row "$CAST_USER")
check "state" "$(field "$r" '`${d.state}:${d.reason}`')" needs_input:snooze_expired
check "bucket (it still asks, so Questions)" "$(field "$r" d.bucket)" questions

# ---- 4 ------------------------------------------------------------------------------------------
say "4. Hand it to Ana → it leaves my inbox and lands in hers, question included"
run cast own "$ID" ana
run cast owners "$ID"
check "in my inbox" "$(field "$(row "$CAST_USER")" 'd === null ? "no" : "yes"')" no
printf '$ CAST_USER=%s cast sessions\n' "$ANA"
ana=$(CAST_USER=$ANA cast sessions)
printf '%s\n' "$ana"
r=$(row "$ANA")
check "in Ana's inbox" "$(field "$r" d.bucket)" questions
check "state" "$(field "$r" '`${d.state}:${d.reason}`')" needs_input:question
check "owners" "$(field "$r" 'd.owners.join(",")')" "$ANA"
check "the question shows" "$(printf '%s' "$ana" | grep -c "asks: $QUESTION")" 1
check "marked as run by me" "$(printf '%s' "$ana" | grep -c "run by $CAST_USER")" 1

# ---- 5 ------------------------------------------------------------------------------------------
say "5. Ana kills it → Killed, one \"gone\" line on the stream"
# Ana's stream, as an orchestrator would read it (--since 0 replays the log, so no race).
CAST_USER=$ANA node "$CAST_BIN" sessions -w --json --since 0 > "$dir/watch.ndjson" 2>&1 &
watch_pid=$!
printf '$ CAST_USER=%s cast kill %s --grace 2s\n' "$ANA" "$ID"
CAST_USER=$ANA cast kill "$ID" --grace 2s
i=0
until grep -q '"event":"gone"' "$dir/watch.ndjson" 2>/dev/null; do
  i=$((i + 1)); [ "$i" -lt 200 ] || { echo "✗ no gone line within 10 s"; exit 1; }; sleep 0.05
done
sleep 0.5
kill "$watch_pid"; wait "$watch_pid" 2>/dev/null || true; watch_pid=''
grep '"event":"gone"' "$dir/watch.ndjson"
check "gone lines" "$(grep -c '"event":"gone"' "$dir/watch.ndjson")" 1
r=$(row "$ANA")
check "bucket" "$(field "$r" d.bucket)" killed
check "state" "$(field "$r" '`${d.state}:${d.reason}`')" idle:killed
check "live" "$(field "$r" d.live)" false
if group_running; then check "agent process group" running gone; else check "agent process group" gone gone; fi

# ---- 6 ------------------------------------------------------------------------------------------
say "6. Ana undoes it → the card is back, the agent stays stopped"
printf '$ CAST_USER=%s cast undo\n' "$ANA"
CAST_USER=$ANA cast undo
r=$(row "$ANA")
check "bucket" "$(field "$r" d.bucket)" questions
check "state" "$(field "$r" '`${d.state}:${d.reason}`')" needs_input:question
if group_running; then check "agent process group" running gone; else check "agent process group" gone gone; fi
agent_pid=''

say "The team's view of the project"
cd "$PROJECT"
run cast feed
printf '\nwalkthrough: every step as expected\n'
