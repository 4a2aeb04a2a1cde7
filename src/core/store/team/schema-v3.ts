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

  -- The server's share of the name rule (the client's, src/core/model/safe-name.ts, is fuller):
  -- invisible, format and direction characters, a form NFKC changes, Latin, Greek and Cyrillic
  -- letters in one name. NULL when none of these.
  CREATE FUNCTION cast_team.unsafe_name(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
    SELECT CASE
      WHEN p ~ '[[:cntrl:]\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF9-\\uFFFB]'
        THEN 'holds an invisible, control or direction character'
      WHEN p IS NOT NFKC NORMALIZED THEN 'is not in NFKC form'
      WHEN (p ~ '[A-Za-z\\u00C0-\\u024F]')::int + (p ~ '[\\u0370-\\u03FF]')::int + (p ~ '[\\u0400-\\u052F]')::int > 1
        THEN 'mixes Latin, Greek or Cyrillic letters'
    END
  $f$;

  CREATE OR REPLACE FUNCTION cast_team.admit_member(p_role name, p_who text) RETURNS void LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_other name;
  BEGIN
    IF NOT cast_team.is_admin() THEN
      RAISE EXCEPTION 'only the team''s admin (the schema owner or a member of cast_team_admin) admits members' USING ERRCODE = '42501';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = p_role) THEN
      RAISE EXCEPTION 'no role % on this server (CREATE ROLE % LOGIN PASSWORD ''…'' IN ROLE cast_member)', p_role, p_role USING ERRCODE = '42704';
    END IF;
    IF p_who IS NULL OR btrim(p_who) <> p_who OR length(p_who) NOT BETWEEN 1 AND 200 OR p_who ~ '[[:cntrl:][:space:]]' THEN
      RAISE EXCEPTION 'an identity is one word of 1 to 200 printable characters (an email)' USING ERRCODE = '22023';
    END IF;
    IF cast_team.unsafe_name(p_who) IS NOT NULL THEN
      RAISE EXCEPTION 'an identity may not look like another: it %', cast_team.unsafe_name(p_who) USING ERRCODE = '22023';
    END IF;
    SELECT role INTO v_other FROM cast_team.members WHERE who = p_who AND role <> p_role;
    IF FOUND THEN
      RAISE EXCEPTION '% is already bound to role %', p_who, v_other USING ERRCODE = '23505';
    END IF;
    INSERT INTO cast_team.members (role, who) VALUES (p_role, p_who)
      ON CONFLICT (role) DO UPDATE SET who = excluded.who, admitted_by = session_user, admitted_at = now();
    UPDATE cast_team.machines SET who = p_who WHERE role = p_role;
  END $f$;

  CREATE OR REPLACE FUNCTION cast_team.register_machine(p_device text, p_pubkey text, p_version text) RETURNS text
  LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_who text := cast_team.caller(); v_role name;
  BEGIN
    IF p_device IS NULL OR length(p_device) NOT BETWEEN 1 AND 128 OR p_device ~ '[[:cntrl:][:space:]]' THEN
      RAISE EXCEPTION 'a device name is 1 to 128 printable characters without spaces' USING ERRCODE = '22023';
    END IF;
    IF cast_team.unsafe_name(p_device) IS NOT NULL THEN
      RAISE EXCEPTION 'a device name may not look like another: it %', cast_team.unsafe_name(p_device) USING ERRCODE = '22023';
    END IF;
    IF p_pubkey IS NOT NULL AND p_pubkey !~ '^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$' THEN
      RAISE EXCEPTION 'a public key is the base64 of 32 bytes' USING ERRCODE = '22023';
    END IF;
    SELECT role INTO v_role FROM cast_team.machines WHERE device = p_device;
    IF FOUND AND v_role <> session_user THEN
      RAISE EXCEPTION 'device % belongs to another member', p_device USING ERRCODE = '42501';
    END IF;
    IF NOT FOUND AND (SELECT count(*) FROM cast_team.machines WHERE role = session_user) >= 20 THEN
      RAISE EXCEPTION 'role % already has 20 devices (cast team leave on one of them)', session_user USING ERRCODE = '54000';
    END IF;
    INSERT INTO cast_team.machines (device, role, who, pubkey, cast_version)
      VALUES (p_device, session_user, v_who, p_pubkey, left(p_version, 40))
      ON CONFLICT (device) DO UPDATE SET who = excluded.who, pubkey = COALESCE(excluded.pubkey, cast_team.machines.pubkey),
        cast_version = excluded.cast_version, last_seen = now();
    RETURN v_who;
  END $f$;

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
  REVOKE ALL ON FUNCTION cast_team.unsafe_name(text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION cast_team.unsafe_name(text) TO cast_member, cast_team_admin;
`
