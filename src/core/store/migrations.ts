import type Database from 'better-sqlite3'

import {SHOWN_SQL} from './shown-facts.js'

export interface Migration {
  readonly version: number
  readonly up: (db: Database.Database) => void
}

export class SchemaFromFutureError extends Error {
  override name = 'SchemaFromFutureError'
}

/** Append only: never edit a shipped step, add a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE sessions (
          id               TEXT PRIMARY KEY,
          agent            TEXT NOT NULL,
          native_id        TEXT NOT NULL,
          parent_id        TEXT,
          facts            TEXT NOT NULL,
          cwd              TEXT,
          title            TEXT,
          last_activity_at INTEGER,
          runner           TEXT,
          device           TEXT,
          first_seen_at    INTEGER NOT NULL,
          state            TEXT,
          reason           TEXT,
          rule             INTEGER,
          bucket           TEXT,
          next_check_at    INTEGER,
          state_since      INTEGER,
          working_since    INTEGER,
          UNIQUE (agent, native_id)
        ) STRICT;
        CREATE INDEX sessions_parent ON sessions (parent_id);
        CREATE INDEX sessions_next_check ON sessions (next_check_at) WHERE next_check_at IS NOT NULL;

        -- cast's own records about a session (docs/contract.md §3.3)
        CREATE TABLE records (
          session_id     TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
          declaration    TEXT,
          verdict        TEXT,
          verdict_at     INTEGER,
          filing         TEXT,
          filed_at       INTEGER,
          snoozed_until  INTEGER,
          killed_at      INTEGER,
          last_send_at   INTEGER,
          pinned         INTEGER NOT NULL DEFAULT 0,
          deferred_at    INTEGER,
          unread         INTEGER NOT NULL DEFAULT 0,
          delivered_turn INTEGER,
          renamed        TEXT
        ) STRICT;

        CREATE TABLE owners (
          session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          who        TEXT NOT NULL,
          added_at   INTEGER NOT NULL,
          added_by   TEXT NOT NULL,
          PRIMARY KEY (session_id, who)
        ) STRICT;

        CREATE TABLE labels (
          session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          who        TEXT NOT NULL,
          label      TEXT NOT NULL,
          PRIMARY KEY (session_id, who)
        ) STRICT;

        -- Every file an adapter reads: identity, offset and the parser's resumable state.
        CREATE TABLE files (
          path         TEXT PRIMARY KEY,
          agent        TEXT NOT NULL,
          kind         TEXT NOT NULL,
          dev          INTEGER NOT NULL,
          ino          INTEGER NOT NULL,
          size         INTEGER NOT NULL,
          mtime_ms     INTEGER NOT NULL,
          offset       INTEGER NOT NULL,
          state        TEXT,
          parse_errors INTEGER NOT NULL DEFAULT 0,
          read_at      INTEGER NOT NULL
        ) STRICT;

        -- What one file knows about one session.
        CREATE TABLE contributions (
          path      TEXT NOT NULL REFERENCES files (path) ON DELETE CASCADE,
          agent     TEXT NOT NULL,
          native_id TEXT NOT NULL,
          data      TEXT NOT NULL,
          PRIMARY KEY (path, native_id)
        ) STRICT;
        CREATE INDEX contributions_session ON contributions (agent, native_id);

        -- The append-only transitions log: exactly one row per change of state, reason or bucket.
        CREATE TABLE transitions (
          seq        INTEGER PRIMARY KEY AUTOINCREMENT,
          ts         INTEGER NOT NULL,
          session_id TEXT NOT NULL,
          event      TEXT NOT NULL,
          from_state TEXT,
          to_state   TEXT NOT NULL,
          reason     TEXT NOT NULL,
          bucket     TEXT NOT NULL,
          from_bucket TEXT
        ) STRICT;
        CREATE INDEX transitions_session ON transitions (session_id, seq);

        CREATE TABLE leases (
          name         TEXT PRIMARY KEY,
          pid          INTEGER NOT NULL,
          host         TEXT NOT NULL,
          started_at   INTEGER NOT NULL,
          heartbeat_at INTEGER NOT NULL,
          info         TEXT
        ) STRICT;

        CREATE TABLE meta (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT;
      `)
    },
  },
  {
    version: 2,
    up(db) {
      db.exec(`
        -- Undo history of triage actions: the records rows before the action.
        CREATE TABLE history (
          id         INTEGER PRIMARY KEY AUTOINCREMENT,
          at         INTEGER NOT NULL,
          who        TEXT NOT NULL,
          verb       TEXT NOT NULL,
          session_id TEXT NOT NULL,
          before     TEXT NOT NULL,
          undone_at  INTEGER
        ) STRICT;

        CREATE TABLE decisions (
          id          TEXT PRIMARY KEY,
          session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          question    TEXT NOT NULL,
          options     TEXT NOT NULL,
          recommend   INTEGER,
          why         TEXT,
          asked_at    INTEGER NOT NULL,
          asked_by    TEXT NOT NULL,
          answer      INTEGER,
          answer_note TEXT,
          answered_at INTEGER,
          answered_by TEXT,
          auto        INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE INDEX decisions_open ON decisions (session_id) WHERE answered_at IS NULL;

        CREATE TABLE schedules (
          id           TEXT PRIMARY KEY,
          session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          message      TEXT NOT NULL,
          due_at       INTEGER NOT NULL,
          every_ms     INTEGER,
          created_at   INTEGER NOT NULL,
          created_by   TEXT NOT NULL,
          status       TEXT NOT NULL,
          delivered_at INTEGER,
          deliveries   INTEGER NOT NULL DEFAULT 0,
          claimed_by   TEXT,
          last_error   TEXT
        ) STRICT;
        CREATE INDEX schedules_due ON schedules (due_at) WHERE status = 'armed';

        CREATE TABLE sends (
          id         INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL,
          at         INTEGER NOT NULL,
          who        TEXT NOT NULL,
          via        TEXT NOT NULL,
          message    TEXT NOT NULL
        ) STRICT;

        CREATE TABLE presence (
          who      TEXT PRIMARY KEY,
          presence TEXT NOT NULL,
          set_at   INTEGER NOT NULL,
          until    INTEGER
        ) STRICT;
      `)
    },
  },
  {
    version: 3,
    up(db) {
      db.exec(`
        -- Sessions started by cast spawn: the parent link, the tree, the label to apply on first
        -- sight. session_id is known up front when the agent takes a preassigned id, else once it
        -- appears. Rows are never deleted once started (the tree cap counts finished ones).
        CREATE TABLE spawns (
          id         TEXT PRIMARY KEY,
          session_id TEXT UNIQUE,
          agent      TEXT NOT NULL,
          parent_id  TEXT,
          root_id    TEXT,
          depth      INTEGER NOT NULL,
          label      TEXT,
          cwd        TEXT NOT NULL,
          prompt     TEXT NOT NULL,
          mode       TEXT NOT NULL,
          target     TEXT,
          pid        INTEGER,
          spawned_at INTEGER NOT NULL,
          spawned_by TEXT NOT NULL,
          status     TEXT NOT NULL
        ) STRICT;
        CREATE INDEX spawns_root ON spawns (root_id);
      `)
    },
  },
  {
    version: 4,
    up(db) {
      // The team outbox (src/core/team): every change the team store must learn of is
      // queued here by a trigger, in the same transaction as the write that made it, so nothing is
      // lost or doubled across crashes and outages. Only while the store has joined a team
      // (meta 'team.joined'): a machine without a team queues nothing. team_done remembers the
      // team actions this machine carried out, so each runs once even across restarts.
      const joined = `EXISTS (SELECT 1 FROM meta WHERE key = 'team.joined')`
      db.exec(`
        CREATE TABLE outbox (
          seq        INTEGER PRIMARY KEY AUTOINCREMENT,
          at         INTEGER NOT NULL,
          session_id TEXT NOT NULL,
          kind       TEXT NOT NULL,
          payload    TEXT NOT NULL
        ) STRICT;

        CREATE TABLE team_done (
          action_id  INTEGER PRIMARY KEY,
          status     TEXT NOT NULL,
          result     TEXT NOT NULL,
          done_at    INTEGER NOT NULL,
          reported   INTEGER NOT NULL DEFAULT 0
        ) STRICT;

        CREATE TRIGGER outbox_transition AFTER INSERT ON transitions WHEN ${joined} BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (NEW.ts, NEW.session_id, 'transition',
            json_object('seq', NEW.seq, 'ts', NEW.ts, 'event', NEW.event, 'from', NEW.from_state, 'to', NEW.to_state,
              'reason', NEW.reason, 'bucket', NEW.bucket, 'from_bucket', NEW.from_bucket));
        END;
        CREATE TRIGGER outbox_owner_add AFTER INSERT ON owners WHEN ${joined} BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (NEW.added_at, NEW.session_id, 'owners',
            json_object('op', 'add', 'who', NEW.who, 'by', NEW.added_by));
        END;
        CREATE TRIGGER outbox_owner_remove AFTER DELETE ON owners WHEN ${joined} BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (CAST(unixepoch('subsec') * 1000 AS INTEGER), OLD.session_id, 'owners',
            json_object('op', 'remove', 'who', OLD.who));
        END;
        CREATE TRIGGER outbox_state_line AFTER UPDATE OF declaration ON records
          WHEN ${joined} AND OLD.declaration IS NOT NEW.declaration BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (CAST(unixepoch('subsec') * 1000 AS INTEGER), NEW.session_id, 'state_line',
            json_object('declaration', json(NEW.declaration)));
        END;
        CREATE TRIGGER outbox_kill AFTER UPDATE OF killed_at ON records
          WHEN ${joined} AND NEW.killed_at IS NOT NULL AND OLD.killed_at IS NOT NEW.killed_at BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (NEW.killed_at, NEW.session_id, 'kill', json_object('killed_at', NEW.killed_at));
        END;
        CREATE TRIGGER outbox_rename AFTER UPDATE OF renamed ON records
          WHEN ${joined} AND OLD.renamed IS NOT NEW.renamed BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (CAST(unixepoch('subsec') * 1000 AS INTEGER), NEW.session_id, 'summary', '{}');
        END;
        CREATE TRIGGER outbox_decision_asked AFTER INSERT ON decisions WHEN ${joined} BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (NEW.asked_at, NEW.session_id, 'decision',
            json_object('op', 'asked', 'card', NEW.id, 'by', NEW.asked_by));
        END;
        CREATE TRIGGER outbox_decision_answered AFTER UPDATE OF answered_at ON decisions
          WHEN ${joined} AND NEW.answered_at IS NOT NULL AND OLD.answered_at IS NULL BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (NEW.answered_at, NEW.session_id, 'decision',
            json_object('op', 'answered', 'card', NEW.id, 'answer', NEW.answer, 'by', NEW.answered_by, 'auto', NEW.auto));
        END;
        -- A new title or ask line without a transition (a second question in a row).
        CREATE TRIGGER outbox_summary AFTER UPDATE OF title, facts ON sessions
          WHEN ${joined} AND (OLD.title IS NOT NEW.title
            OR json_extract(OLD.facts, '$.question.text') IS NOT json_extract(NEW.facts, '$.question.text')
            OR json_extract(OLD.facts, '$.approval.text') IS NOT json_extract(NEW.facts, '$.approval.text')) BEGIN
          INSERT INTO outbox (at, session_id, kind, payload) VALUES (COALESCE(NEW.last_activity_at, 0), NEW.id, 'summary', '{}');
        END;
      `)
    },
  },
  {
    version: 5,
    up(db) {
      // The settle classifier's verdict per session and turn (src/core/ingest/classifier.ts):
      // one run per settled, undeclared turn; a failure or timeout is kept too (error), so it is
      // not retried and `cast explain` can show it.
      db.exec(`
        CREATE TABLE settle_verdicts (
          session_id TEXT NOT NULL,
          turn_index INTEGER NOT NULL,
          verdict    TEXT,
          why        TEXT,
          error      TEXT,
          at         INTEGER NOT NULL,
          ms         INTEGER,
          PRIMARY KEY (session_id, turn_index)
        ) STRICT;
      `)
    },
  },
  {
    version: 6,
    up(db) {
      // A no-op sync reads what it compares, not the big columns beside it.
      // Each index matches its query's expressions exactly: the planner uses an expression only
      // when it is written the same way.
      db.exec(`
        -- The contributions that carry a process claim (the liveness re-check every sync does,
        -- contributions.ts sessionsWithProcessClaims): the few rows themselves, not a LIKE scan
        -- over every contribution's data. The flag is computed by SQLite on every write.
        CREATE INDEX contributions_claims ON contributions (agent, native_id) WHERE instr(data, '"processClaim"') > 0;

        -- Every file's mark (what a no-op sync compares with a stat, file-marks.ts loadFileMarks)
        -- and whether its parser state names a holder process, without the states: a covering index.
        CREATE INDEX files_marks ON files (path, agent, kind, dev, ino, size, mtime_ms, offset, parse_errors, read_at, instr(coalesce(state, ''), '"__holder":'));

        -- What decides whether a row can be in the inbox (listing.ts inboxCandidates), without
        -- the facts: a covering index.
        CREATE INDEX sessions_inbox ON sessions (id, last_activity_at, first_seen_at, bucket, state, runner, facts -> '$.approval' != 'null', facts -> '$.question' != 'null');
      `)
    },
  },
  {
    version: 7,
    up(db) {
      // The request id (uid) of each team action this machine carried out: a request seen once is
      // refused every other time, whatever server row carries it (src/lib/team/executor.ts).
      db.exec(`
        ALTER TABLE team_done ADD COLUMN uid TEXT;
        CREATE UNIQUE INDEX team_done_uid ON team_done (uid) WHERE uid IS NOT NULL;
      `)
    },
  },
  {
    version: 8,
    up(db) {
      // Parks (src/core/model/parks.ts): a stash gated on another session. until_id carries no
      // foreign key: the other session may go away, which releases the park. An ended park stays
      // (ended_at, ended) so the release's notification and `cast explain` can show its note;
      // the park pass (store/parks.ts) deletes ended ones after 14 days.
      db.exec(`
        CREATE TABLE parks (
          session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
          until_id   TEXT NOT NULL,
          note       TEXT,
          made_at    INTEGER NOT NULL,
          seen_at    INTEGER NOT NULL,
          after_seq  INTEGER NOT NULL,
          ended_at   INTEGER,
          ended      TEXT
        ) STRICT;
        CREATE INDEX parks_active ON parks (until_id) WHERE ended_at IS NULL;
      `)
    },
  },
  {
    version: 9,
    up(db) {
      // The JSONL reader's own marks (src/core/ingest/jsonl-read.ts) move out of the adapter's
      // parser state into columns beside it: the agent process holding the file open when it was
      // last read (holder), the size at which a last line without its newline was tried and left
      // (tail_tried), and the print of the bytes before the offset (fp). Stores written before
      // kept them in the state as "__holder", "__tail" and "__fp"; they move here, and the state
      // keeps the parser's keys only. files_marks indexes the holder column instead of searching
      // the state's text.
      db.exec(`
        ALTER TABLE files ADD COLUMN holder INTEGER;
        ALTER TABLE files ADD COLUMN tail_tried INTEGER;
        ALTER TABLE files ADD COLUMN fp TEXT;
        UPDATE files SET
          holder = json_extract(state, '$.__holder'),
          tail_tried = json_extract(state, '$.__tail'),
          fp = json_extract(state, '$.__fp'),
          state = json_remove(state, '$.__holder', '$.__tail', '$.__fp')
        WHERE state IS NOT NULL AND json_valid(state)
          AND (instr(state, '"__holder":') > 0 OR instr(state, '"__tail":') > 0 OR instr(state, '"__fp":') > 0);
        DROP INDEX files_marks;
        CREATE INDEX files_marks ON files (path, agent, kind, dev, ino, size, mtime_ms, offset, parse_errors, read_at, holder);
      `)
    },
  },
  {
    version: 10,
    up(db) {
      // The part of each session's facts the listings read (src/core/store/shown-facts.ts), beside
      // the facts: `cast sessions --json --all` parses it instead of the whole facts text.
      // upsertFacts writes both; a write of the facts that leaves `shown` as it was (any other
      // writer) has it recomputed by the triggers. Facts that are not a JSON object give NULL
      // (readers fall back to the facts).
      // A store put back to an older user_version with the column kept (as tests do) adds it once.
      const has = (db.prepare('PRAGMA table_info(sessions)').all() as {name: string}[]).some((c) => c.name === 'shown')
      if (!has) db.exec('ALTER TABLE sessions ADD COLUMN shown TEXT')
      db.exec(`
        UPDATE sessions SET shown = ${SHOWN_SQL};
        CREATE TRIGGER IF NOT EXISTS sessions_shown_insert AFTER INSERT ON sessions WHEN NEW.shown IS NULL BEGIN
          UPDATE sessions SET shown = ${SHOWN_SQL} WHERE id = NEW.id;
        END;
        CREATE TRIGGER IF NOT EXISTS sessions_shown_update AFTER UPDATE OF facts ON sessions
          WHEN NEW.shown IS OLD.shown AND NEW.facts IS NOT OLD.facts BEGIN
          UPDATE sessions SET shown = ${SHOWN_SQL} WHERE id = NEW.id;
        END;
      `)
    },
  },
]

export const LATEST_VERSION = MIGRATIONS.at(-1)?.version ?? 0

export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  const latest = migrations.at(-1)?.version ?? 0
  const current = db.pragma('user_version', {simple: true}) as number
  if (current > latest) {
    throw new SchemaFromFutureError(
      `The database was written by a newer cast (schema v${current}; this build knows up to v${latest}). Upgrade cast; nothing was changed.`,
    )
  }

  if (current === latest) return latest
  // One write transaction: every pending step and the new user_version land together, or none do.
  // The version is read again inside it, so two processes migrating at once do the work once.
  db.transaction(() => {
    const now = db.pragma('user_version', {simple: true}) as number
    for (const m of migrations) if (m.version > now) m.up(db)
    db.pragma(`user_version = ${latest}`)
  }).immediate()
  return latest
}
