/**
 * Team schema v3: a role the admin removed reads nothing of the team.
 *
 * - Row-level security on every table a member can read (members, machines, sessions, events,
 *   actions): a row is visible only while the caller (`session_user`) is bound to a person in
 *   cast_team.members, or is the team's admin. The tables' owner and superusers bypass it (they
 *   own the data). `cast_team.reader()` is evaluated once per statement (an InitPlan).
 * - Actions carry message text: a member sees only the actions they asked for or that are for
 *   one of their own devices, not every message sent to anyone's agent.
 * - Removal also refuses the actions the removed role's devices queued and that have not run;
 *   machines check again, when each action runs, that its requester is still a member
 *   (src/team/standing.ts), since a claim can race the removal.
 *
 * PostgreSQL has no privilege on LISTEN/NOTIFY: any role that can connect may NOTIFY any channel.
 * Notifications carry nothing but a hint; readers coalesce them (docs/team.md, NOTIFY).
 */

const DEFINER = `SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '5s'`

export const TEAM_V3 = `
  CREATE FUNCTION cast_team.reader() RETURNS boolean LANGUAGE sql STABLE ${DEFINER} AS $f$
    SELECT cast_team.me() IS NOT NULL OR cast_team.is_admin()
  $f$;

  -- The caller's own devices (as a member), for the actions policy.
  CREATE FUNCTION cast_team.my_devices() RETURNS text[] LANGUAGE sql STABLE ${DEFINER} AS $f$
    SELECT COALESCE(array_agg(m.device), '{}') FROM cast_team.machines m
     WHERE m.role = session_user AND EXISTS (SELECT 1 FROM cast_team.members p WHERE p.role = session_user)
  $f$;

  DROP POLICY IF EXISTS read ON cast_team.machines;
  DROP POLICY IF EXISTS read ON cast_team.sessions;
  DROP POLICY IF EXISTS read ON cast_team.events;
  DROP POLICY IF EXISTS read ON cast_team.actions;
  ALTER TABLE cast_team.members ENABLE ROW LEVEL SECURITY;
  ALTER TABLE cast_team.machines ENABLE ROW LEVEL SECURITY;
  ALTER TABLE cast_team.sessions ENABLE ROW LEVEL SECURITY;
  ALTER TABLE cast_team.events ENABLE ROW LEVEL SECURITY;
  ALTER TABLE cast_team.actions ENABLE ROW LEVEL SECURITY;
  CREATE POLICY member_read ON cast_team.members FOR SELECT USING ((SELECT cast_team.reader()));
  CREATE POLICY member_read ON cast_team.machines FOR SELECT USING ((SELECT cast_team.reader()));
  CREATE POLICY member_read ON cast_team.sessions FOR SELECT USING ((SELECT cast_team.reader()));
  CREATE POLICY member_read ON cast_team.events FOR SELECT USING ((SELECT cast_team.reader()));
  CREATE POLICY member_read ON cast_team.actions FOR SELECT USING (
    (SELECT cast_team.is_admin())
    OR device = ANY ((SELECT cast_team.my_devices())::text[])
    OR requested_from = ANY ((SELECT cast_team.my_devices())::text[]));

  CREATE OR REPLACE FUNCTION cast_team.remove_member(p_role name) RETURNS integer LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_n integer; v_who text;
  BEGIN
    IF NOT cast_team.is_admin() THEN
      RAISE EXCEPTION 'only the team''s admin (the schema owner or a member of cast_team_admin) removes members' USING ERRCODE = '42501';
    END IF;
    SELECT who INTO v_who FROM cast_team.members WHERE role = p_role;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'role % is not a member of the team', p_role USING ERRCODE = '42704';
    END IF;
    UPDATE cast_team.actions SET status = 'refused', done_at = now(), result = '{"error": "the machine was removed from the team", "exit": 5}'
     WHERE status IN ('queued', 'running') AND device IN (SELECT device FROM cast_team.machines WHERE role = p_role);
    UPDATE cast_team.actions SET status = 'refused', done_at = now(),
           result = jsonb_build_object('error', format('%s is no longer a member of the team (removed before this ran); nothing was done', v_who), 'exit', 5)
     WHERE status = 'queued' AND (requested_by = v_who OR requested_from IN (SELECT device FROM cast_team.machines WHERE role = p_role));
    DELETE FROM cast_team.sessions WHERE device IN (SELECT device FROM cast_team.machines WHERE role = p_role);
    DELETE FROM cast_team.machines WHERE role = p_role;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    DELETE FROM cast_team.members WHERE role = p_role;
    RETURN v_n;
  END $f$;

  REVOKE ALL ON FUNCTION cast_team.reader(), cast_team.my_devices() FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION cast_team.reader(), cast_team.my_devices() TO cast_member, cast_team_admin;
`
