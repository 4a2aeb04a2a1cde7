/**
 * The team store's schema on PostgreSQL, in its own schema `cast_team`, versioned like the
 * local store: cast_team.schema_version holds the version, each step runs once in one transaction
 * under an advisory lock, and a server written by a newer cast is refused, nothing changed.
 *
 * Who may write what is enforced by the server, not by the client: from v2 (schema-v2.ts) each
 * login role is bound to one person by the team's admin (cast_team.members), and members write
 * only through SECURITY DEFINER functions that take the caller's identity from that binding.
 * Every role of the team is a member of `cast_member` (see docs/team.md for the admin's steps).
 */
import type {PoolClient} from 'pg'

import {TEAM_V2} from './schema-v2.js'
import {TEAM_V3} from './schema-v3.js'

export class TeamSchemaFromFutureError extends Error {
  override name = 'TeamSchemaFromFutureError'
}

interface Step {
  readonly version: number
  readonly sql: string
}

/** Append only: never edit a shipped step, add a new one. */
export const TEAM_MIGRATIONS: readonly Step[] = [
  {
    version: 1,
    sql: `
      DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cast_member') THEN CREATE ROLE cast_member NOLOGIN; END IF;
      END $$;

      CREATE TABLE cast_team.machines (
        device     text PRIMARY KEY,
        role       name NOT NULL DEFAULT current_user,
        who        text NOT NULL,
        joined_at  timestamptz NOT NULL DEFAULT now(),
        last_seen  timestamptz NOT NULL DEFAULT now(),
        last_sync  timestamptz,
        pending    integer NOT NULL DEFAULT 0,
        -- The machine's clock minus the server's at its last publish: times it reports are
        -- shifted by this when read, so the team is ordered by the server's clock.
        skew_ms    bigint NOT NULL DEFAULT 0,
        cast_version text
      );

      -- One summary per session: what the feed, --team and owners' inboxes read. No transcript
      -- content beyond the title and the ask line.
      CREATE TABLE cast_team.sessions (
        id          text PRIMARY KEY,
        device      text NOT NULL REFERENCES cast_team.machines (device),
        runner      text,
        owners      text[] NOT NULL DEFAULT '{}',
        cwd         text,
        state       text,
        bucket      text,
        summary     jsonb NOT NULL,
        epoch       text NOT NULL,
        local_seq   bigint NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now(),
        activity_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_owners ON cast_team.sessions USING gin (owners);
      CREATE INDEX sessions_activity ON cast_team.sessions (activity_at DESC);

      -- Every change a machine published, exactly once: (device, epoch, local_seq) names the row
      -- of the machine's outbox it came from. seq is the server's order (its clock, not the
      -- machines'): streams resume from it.
      CREATE TABLE cast_team.events (
        seq        bigserial PRIMARY KEY,
        device     text NOT NULL REFERENCES cast_team.machines (device),
        epoch      text NOT NULL,
        local_seq  bigint NOT NULL,
        session_id text NOT NULL,
        kind       text NOT NULL,
        at         timestamptz NOT NULL DEFAULT clock_timestamp(),
        device_at  bigint,
        payload    jsonb NOT NULL,
        UNIQUE (device, epoch, local_seq)
      );

      -- Actions on a session queued by a teammate's machine, carried out by the machine it runs on.
      CREATE TABLE cast_team.actions (
        id             bigserial PRIMARY KEY,
        device         text NOT NULL REFERENCES cast_team.machines (device),
        session_id     text NOT NULL,
        verb           text NOT NULL,
        args           jsonb NOT NULL,
        requested_by   text NOT NULL,
        requested_from text NOT NULL REFERENCES cast_team.machines (device),
        requested_at   timestamptz NOT NULL DEFAULT now(),
        status         text NOT NULL DEFAULT 'queued',
        result         jsonb,
        claimed_at     timestamptz,
        done_at        timestamptz
      );
      CREATE INDEX actions_queued ON cast_team.actions (device, id) WHERE status = 'queued';

      CREATE FUNCTION cast_team.my_device(d text) RETURNS boolean LANGUAGE sql STABLE AS
        $f$ SELECT EXISTS (SELECT 1 FROM cast_team.machines m WHERE m.device = d AND m.role = current_user) $f$;

      GRANT USAGE ON SCHEMA cast_team TO cast_member;
      GRANT SELECT ON ALL TABLES IN SCHEMA cast_team TO cast_member;
      GRANT INSERT, UPDATE ON cast_team.machines, cast_team.sessions, cast_team.events, cast_team.actions TO cast_member;
      GRANT DELETE ON cast_team.sessions TO cast_member;
      GRANT DELETE ON cast_team.machines TO cast_member;
      GRANT USAGE ON ALL SEQUENCES IN SCHEMA cast_team TO cast_member;

      ALTER TABLE cast_team.machines ENABLE ROW LEVEL SECURITY;
      ALTER TABLE cast_team.sessions ENABLE ROW LEVEL SECURITY;
      ALTER TABLE cast_team.events ENABLE ROW LEVEL SECURITY;
      ALTER TABLE cast_team.actions ENABLE ROW LEVEL SECURITY;
      CREATE POLICY read ON cast_team.machines FOR SELECT USING (true);
      CREATE POLICY claim ON cast_team.machines FOR INSERT WITH CHECK (role = current_user);
      CREATE POLICY mine ON cast_team.machines FOR UPDATE USING (role = current_user) WITH CHECK (role = current_user);
      CREATE POLICY leave ON cast_team.machines FOR DELETE USING (role = current_user);
      CREATE POLICY read ON cast_team.sessions FOR SELECT USING (true);
      CREATE POLICY publish ON cast_team.sessions FOR INSERT WITH CHECK (cast_team.my_device(device));
      CREATE POLICY mine ON cast_team.sessions FOR UPDATE USING (cast_team.my_device(device)) WITH CHECK (cast_team.my_device(device));
      CREATE POLICY leave ON cast_team.sessions FOR DELETE USING (cast_team.my_device(device));
      CREATE POLICY read ON cast_team.events FOR SELECT USING (true);
      CREATE POLICY publish ON cast_team.events FOR INSERT WITH CHECK (cast_team.my_device(device));
      CREATE POLICY read ON cast_team.actions FOR SELECT USING (true);
      CREATE POLICY request ON cast_team.actions FOR INSERT WITH CHECK (
        cast_team.my_device(requested_from) AND status = 'queued' AND result IS NULL
        AND requested_by = (SELECT m.who FROM cast_team.machines m WHERE m.device = requested_from));
      CREATE POLICY carry_out ON cast_team.actions FOR UPDATE USING (cast_team.my_device(device)) WITH CHECK (cast_team.my_device(device));
    `,
  },
  {version: 2, sql: TEAM_V2},
  {version: 3, sql: TEAM_V3},
]

export const TEAM_SCHEMA_VERSION = TEAM_MIGRATIONS.at(-1)!.version

/** The server's schema version (0: none yet). */
export async function serverVersion(c: PoolClient): Promise<number> {
  const r = await c.query<{present: boolean}>(`SELECT to_regclass('cast_team.schema_version') IS NOT NULL AS present`)
  if (!r.rows[0]!.present) return 0 // a SELECT without FROM: always one row
  const v = await c.query<{version: number}>('SELECT version FROM cast_team.schema_version')
  return Number(v.rows[0]?.version ?? 0)
}

/**
 * Bring the server's schema up to this build's version. A newer server is refused; an older one
 * is migrated by a role allowed to (the team's admin), else the error says who must run it.
 */
export async function migrateTeam(c: PoolClient): Promise<{from: number; to: number}> {
  const before = await serverVersion(c)
  if (before > TEAM_SCHEMA_VERSION) {
    throw new TeamSchemaFromFutureError(
      `The team store was written by a newer cast (team schema v${before}; this build knows up to v${TEAM_SCHEMA_VERSION}). Upgrade cast; nothing was changed.`,
    )
  }

  if (before === TEAM_SCHEMA_VERSION) return {from: before, to: before}
  await c.query('BEGIN')
  try {
    // One migrator at a time; the version is read again under the lock.
    // A member's open read (ACCESS SHARE) must not hang the upgrade: fail, say so, retry later.
    await c.query(`SET LOCAL lock_timeout = '10s'`)
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('cast.migrate'))`)
    await c.query('CREATE SCHEMA IF NOT EXISTS cast_team')
    await c.query('CREATE TABLE IF NOT EXISTS cast_team.schema_version (version integer NOT NULL)')
    const now = await serverVersion(c)
    if (now > TEAM_SCHEMA_VERSION)
      throw new TeamSchemaFromFutureError(
        `The team store was written by a newer cast (team schema v${now}). Upgrade cast; nothing was changed.`,
      )
    for (const step of TEAM_MIGRATIONS) if (step.version > now) await c.query(step.sql)
    await c.query('DELETE FROM cast_team.schema_version')
    await c.query('INSERT INTO cast_team.schema_version (version) VALUES ($1)', [TEAM_SCHEMA_VERSION])
    await c.query('GRANT USAGE ON SCHEMA cast_team TO cast_member')
    await c.query('REVOKE ALL ON cast_team.schema_version FROM PUBLIC, cast_member')
    await c.query('GRANT SELECT ON cast_team.schema_version TO cast_member')
    await c.query('COMMIT')
  } catch (error) {
    await c.query('ROLLBACK').catch(() => {})
    const e = error as {code?: string; message: string}
    if (e.code === '42501') {
      throw new Error(
        `The team store's schema is at v${before} and this role may not create it (${e.message}). Ask the team's admin to run "cast team join" once with the owner's URL (docs/team.md).`,
      )
    }

    throw error
  }

  return {from: before, to: TEAM_SCHEMA_VERSION}
}
