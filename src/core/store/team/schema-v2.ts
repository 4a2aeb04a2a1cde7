/**
 * Team schema v2: the server says who a member is, and members write only through functions.
 *
 * - `cast_team.members` binds each login role to one person (`who`); only the team's admin (the
 *   schema's owner, a member of `cast_team_admin`, or a superuser) writes it, through
 *   `admit_member` / `remove_member`.
 * - A member's role holds SELECT on the tables and EXECUTE on the functions below, nothing else:
 *   no INSERT/UPDATE/DELETE/TRUNCATE, so no table lock stronger than ACCESS SHARE and no row lock
 *   (SELECT … FOR UPDATE/SHARE needs UPDATE). The functions are SECURITY DEFINER with their
 *   search_path pinned, take the caller from `session_user` (the login role: SET ROLE does not
 *   change it) and write `who`, `runner` and `requested_by` from its binding, never from the client.
 * - `events.seq` comes from the table's sequence inside `publish`, with no lock: each row also
 *   records the publishing transaction (`xid`, taken before any seq), and readers treat a missing
 *   seq as in flight while a transaction that was running when they first saw the gap still runs
 *   (src/core/store/team/stream.ts). No advisory lock orders anything, so none can be held
 *   against the team.
 * - Every member function sets its own lock_timeout; sizes are capped, so no call is unbounded.
 *
 * The functions' signatures are the client's contract (src/core/store/team/calls.ts).
 */

const DEFINER = `SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '5s'`

export const TEAM_V2 = `
  DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cast_team_admin') THEN CREATE ROLE cast_team_admin NOLOGIN; END IF;
  END $$;

  CREATE TABLE cast_team.members (
    role        name PRIMARY KEY,
    who         text NOT NULL UNIQUE CHECK (length(who) BETWEEN 1 AND 200),
    admitted_by name NOT NULL DEFAULT session_user,
    admitted_at timestamptz NOT NULL DEFAULT now()
  );

  -- Write policies of v1 go: nothing but the functions writes.
  DROP POLICY IF EXISTS claim ON cast_team.machines;
  DROP POLICY IF EXISTS mine ON cast_team.machines;
  DROP POLICY IF EXISTS leave ON cast_team.machines;
  DROP POLICY IF EXISTS publish ON cast_team.sessions;
  DROP POLICY IF EXISTS mine ON cast_team.sessions;
  DROP POLICY IF EXISTS leave ON cast_team.sessions;
  DROP POLICY IF EXISTS publish ON cast_team.events;
  DROP POLICY IF EXISTS request ON cast_team.actions;
  DROP POLICY IF EXISTS carry_out ON cast_team.actions;
  DROP FUNCTION IF EXISTS cast_team.my_device(text);

  ALTER TABLE cast_team.machines ADD COLUMN pubkey text;
  -- Events and actions outlive the machine row (a machine that leaves releases its name).
  ALTER TABLE cast_team.events DROP CONSTRAINT IF EXISTS events_device_fkey;
  ALTER TABLE cast_team.events ADD COLUMN xid xid8;
  ALTER TABLE cast_team.actions DROP CONSTRAINT IF EXISTS actions_device_fkey;
  ALTER TABLE cast_team.actions DROP CONSTRAINT IF EXISTS actions_requested_from_fkey;
  ALTER TABLE cast_team.actions ADD COLUMN uid uuid UNIQUE;
  ALTER TABLE cast_team.actions ADD COLUMN expires_at timestamptz;
  ALTER TABLE cast_team.actions ADD COLUMN sig text;

  -- Rows v1 let any member write: their authors are unproven. Machines re-register under their
  -- admitted identity; until then nothing of theirs is shown (readers join members).
  UPDATE cast_team.machines SET who = '' WHERE true;

  CREATE FUNCTION cast_team.is_admin() RETURNS boolean LANGUAGE sql STABLE ${DEFINER} AS $f$
    SELECT pg_has_role(session_user, 'cast_team_admin', 'MEMBER')
        OR pg_has_role(session_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'cast_team'), 'MEMBER')
  $f$;

  -- The caller's bound identity, or NULL.
  CREATE FUNCTION cast_team.me() RETURNS text LANGUAGE sql STABLE ${DEFINER} AS $f$
    SELECT who FROM cast_team.members WHERE role = session_user
  $f$;

  CREATE FUNCTION cast_team.caller() RETURNS text LANGUAGE plpgsql STABLE ${DEFINER} AS $f$
  DECLARE v text := cast_team.me();
  BEGIN
    IF v IS NULL THEN
      RAISE EXCEPTION 'role % is not admitted to the team (the admin runs: cast team admit % EMAIL)', session_user, session_user
        USING ERRCODE = '42501';
    END IF;
    RETURN v;
  END $f$;

  CREATE FUNCTION cast_team.own_device(p_device text) RETURNS void LANGUAGE plpgsql STABLE ${DEFINER} AS $f$
  BEGIN
    PERFORM cast_team.caller();
    IF NOT EXISTS (SELECT 1 FROM cast_team.machines WHERE device = p_device AND role = session_user) THEN
      RAISE EXCEPTION 'device % is not registered by role %', p_device, session_user USING ERRCODE = '42501';
    END IF;
  END $f$;

  CREATE FUNCTION cast_team.admit_member(p_role name, p_who text) RETURNS void LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
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
    SELECT role INTO v_other FROM cast_team.members WHERE who = p_who AND role <> p_role;
    IF FOUND THEN
      RAISE EXCEPTION '% is already bound to role %', p_who, v_other USING ERRCODE = '23505';
    END IF;
    INSERT INTO cast_team.members (role, who) VALUES (p_role, p_who)
      ON CONFLICT (role) DO UPDATE SET who = excluded.who, admitted_by = session_user, admitted_at = now();
    UPDATE cast_team.machines SET who = p_who WHERE role = p_role;
  END $f$;

  -- Unbinds a role and takes its machines off the team (sessions removed, its queued actions refused).
  CREATE FUNCTION cast_team.remove_member(p_role name) RETURNS integer LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_n integer;
  BEGIN
    IF NOT cast_team.is_admin() THEN
      RAISE EXCEPTION 'only the team''s admin (the schema owner or a member of cast_team_admin) removes members' USING ERRCODE = '42501';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM cast_team.members WHERE role = p_role) THEN
      RAISE EXCEPTION 'role % is not a member of the team', p_role USING ERRCODE = '42704';
    END IF;
    UPDATE cast_team.actions SET status = 'refused', done_at = now(), result = '{"error": "the machine was removed from the team", "exit": 5}'
     WHERE status IN ('queued', 'running') AND device IN (SELECT device FROM cast_team.machines WHERE role = p_role);
    DELETE FROM cast_team.sessions WHERE device IN (SELECT device FROM cast_team.machines WHERE role = p_role);
    DELETE FROM cast_team.machines WHERE role = p_role;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    DELETE FROM cast_team.members WHERE role = p_role;
    RETURN v_n;
  END $f$;

  -- Registers (or refreshes) a device for the caller: its identity from the binding, its public
  -- key (base64 of the raw 32-byte Ed25519 key, or NULL). A name another role holds is refused.
  CREATE FUNCTION cast_team.register_machine(p_device text, p_pubkey text, p_version text) RETURNS text
  LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_who text := cast_team.caller(); v_role name;
  BEGIN
    IF p_device IS NULL OR length(p_device) NOT BETWEEN 1 AND 128 OR p_device ~ '[[:cntrl:][:space:]]' THEN
      RAISE EXCEPTION 'a device name is 1 to 128 printable characters without spaces' USING ERRCODE = '22023';
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

  -- Moves the caller's sessions and queued actions from one of its devices to another (both its
  -- own), then releases the old name. Events keep the device they were published under.
  CREATE FUNCTION cast_team.move_machine(p_from text, p_to text) RETURNS integer LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_n integer;
  BEGIN
    PERFORM cast_team.own_device(p_from);
    PERFORM cast_team.own_device(p_to);
    IF p_from = p_to THEN RETURN 0; END IF;
    UPDATE cast_team.sessions SET device = p_to, summary = jsonb_set(summary, '{device}', to_jsonb(p_to)) WHERE device = p_from;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    UPDATE cast_team.actions SET device = p_to WHERE device = p_from AND status = 'queued';
    UPDATE cast_team.machines t SET pubkey = COALESCE(t.pubkey, f.pubkey), skew_ms = f.skew_ms
      FROM cast_team.machines f WHERE f.device = p_from AND t.device = p_to;
    DELETE FROM cast_team.machines WHERE device = p_from;
    RETURN v_n;
  END $f$;

  -- Takes one of the caller's devices off the team: its sessions removed, actions still queued for
  -- it refused, its name released.
  CREATE FUNCTION cast_team.leave_machine(p_device text) RETURNS integer LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_n integer;
  BEGIN
    PERFORM cast_team.own_device(p_device);
    UPDATE cast_team.actions SET status = 'refused', done_at = now(), result = '{"error": "the machine left the team", "exit": 5}'
     WHERE device = p_device AND status IN ('queued', 'running');
    DELETE FROM cast_team.sessions WHERE device = p_device;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    DELETE FROM cast_team.machines WHERE device = p_device;
    RETURN v_n;
  END $f$;

  -- One publish: p_sessions [{id, local_seq, summary}], p_events [{local_seq, session_id, kind,
  -- device_at, payload}]. Each row is checked on its own; a refused row is named in the result
  -- ({"refused": [{"kind", "id" | "local_seq", "why"}], "dropped", "sessions", "events", "seq"})
  -- and the others go on. The summary's device and runner are the caller's, its id the row's;
  -- an event whose local_seq is not above the device's last one (same epoch) is dropped.
  CREATE FUNCTION cast_team.publish(p_device text, p_epoch text, p_sessions jsonb, p_events jsonb, p_pending integer, p_now_ms bigint)
  RETURNS jsonb LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE
    v_xid xid8 := pg_current_xact_id();
    v_who text := cast_team.caller();
    v_refused jsonb := '[]';
    v_dropped integer := 0;
    v_sessions integer := 0;
    v_events integer := 0;
    v_max bigint := NULL;
    v_last bigint;
    v_seq bigint;
    r jsonb;
    v_id text;
    v_sum jsonb;
    v_lseq bigint;
    v_why text;
  BEGIN
    PERFORM cast_team.own_device(p_device);
    IF p_epoch IS NULL OR length(p_epoch) NOT BETWEEN 1 AND 64 THEN
      RAISE EXCEPTION 'an epoch is 1 to 64 characters' USING ERRCODE = '22023';
    END IF;
    IF jsonb_typeof(p_sessions) IS DISTINCT FROM 'array' OR jsonb_typeof(p_events) IS DISTINCT FROM 'array' THEN
      RAISE EXCEPTION 'sessions and events are arrays' USING ERRCODE = '22023';
    END IF;
    IF jsonb_array_length(p_sessions) > 1000 OR jsonb_array_length(p_events) > 1000 THEN
      RAISE EXCEPTION 'at most 1000 sessions and 1000 events a call' USING ERRCODE = '54000';
    END IF;

    FOR r IN SELECT value FROM jsonb_array_elements(p_sessions) LOOP
      v_id := CASE WHEN jsonb_typeof(r -> 'id') = 'string' THEN r ->> 'id' END;
      v_sum := r -> 'summary';
      v_why := CASE
        WHEN jsonb_typeof(r) <> 'object' THEN 'not an object'
        WHEN v_id IS NULL OR length(v_id) NOT BETWEEN 1 AND 200 THEN 'no session id'
        WHEN jsonb_typeof(r -> 'local_seq') IS DISTINCT FROM 'number' OR (r ->> 'local_seq') !~ '^[0-9]{1,15}$' THEN 'no local_seq'
        WHEN jsonb_typeof(v_sum) IS DISTINCT FROM 'object' THEN 'no summary'
        WHEN (v_sum ->> 'id') IS DISTINCT FROM v_id THEN 'the summary names another session'
        WHEN jsonb_typeof(v_sum -> 'records') IS DISTINCT FROM 'object' OR jsonb_typeof(v_sum -> 'facts') IS DISTINCT FROM 'object' THEN 'the summary has no records or facts'
        WHEN jsonb_typeof(v_sum -> 'records' -> 'owners') IS DISTINCT FROM 'array'
          OR EXISTS (SELECT 1 FROM jsonb_array_elements(v_sum -> 'records' -> 'owners') o WHERE jsonb_typeof(o) <> 'string') THEN 'owners is not a list of identities'
        WHEN octet_length(v_sum::text) > 65536 THEN 'the summary is over 64 KiB'
        WHEN EXISTS (SELECT 1 FROM cast_team.sessions s WHERE s.id = v_id AND s.device <> p_device) THEN 'the session is published by another device'
        END;
      IF v_why IS NOT NULL THEN
        v_refused := v_refused || jsonb_build_object('kind', 'session', 'id', left(v_id, 200), 'why', v_why);
        CONTINUE;
      END IF;
      v_lseq := (r ->> 'local_seq')::bigint;
      v_sum := v_sum || jsonb_build_object('device', p_device, 'runner', v_who);
      INSERT INTO cast_team.sessions AS s (id, device, runner, owners, cwd, state, bucket, summary, epoch, local_seq)
      VALUES (v_id, p_device, v_who, ARRAY(SELECT jsonb_array_elements_text(v_sum -> 'records' -> 'owners')),
              left(v_sum -> 'facts' ->> 'cwd', 4096), left(v_sum ->> 'state', 40), left(v_sum ->> 'bucket', 40), v_sum, p_epoch, v_lseq)
      ON CONFLICT (id) DO UPDATE SET runner = excluded.runner, owners = excluded.owners, cwd = excluded.cwd,
        state = excluded.state, bucket = excluded.bucket, summary = excluded.summary, epoch = excluded.epoch, local_seq = excluded.local_seq,
        updated_at = now(),
        activity_at = CASE WHEN (s.summary -> 'facts' ->> 'lastActivityAt') IS DISTINCT FROM (excluded.summary -> 'facts' ->> 'lastActivityAt')
                           THEN now() ELSE s.activity_at END
      WHERE s.device = excluded.device AND (s.epoch <> excluded.epoch OR s.local_seq <= excluded.local_seq);
      v_sessions := v_sessions + 1;
    END LOOP;

    SELECT max(local_seq) INTO v_last FROM cast_team.events WHERE device = p_device AND epoch = p_epoch;
    v_last := COALESCE(v_last, 0);
    FOR r IN SELECT value FROM jsonb_array_elements(p_events) e
              ORDER BY CASE WHEN (e.value ->> 'local_seq') ~ '^[0-9]{1,15}$' THEN (e.value ->> 'local_seq')::bigint END LOOP
      v_why := CASE
        WHEN jsonb_typeof(r) <> 'object' THEN 'not an object'
        WHEN jsonb_typeof(r -> 'local_seq') IS DISTINCT FROM 'number' OR (r ->> 'local_seq') !~ '^[0-9]{1,15}$' THEN 'no local_seq'
        WHEN jsonb_typeof(r -> 'session_id') IS DISTINCT FROM 'string' OR length(r ->> 'session_id') NOT BETWEEN 1 AND 200 THEN 'no session id'
        WHEN jsonb_typeof(r -> 'kind') IS DISTINCT FROM 'string' OR length(r ->> 'kind') NOT BETWEEN 1 AND 40 THEN 'no kind'
        WHEN jsonb_typeof(r -> 'payload') IS DISTINCT FROM 'object' THEN 'no payload'
        WHEN (r -> 'device_at') IS NOT NULL AND jsonb_typeof(r -> 'device_at') NOT IN ('number', 'null') THEN 'device_at is not a time'
        WHEN jsonb_typeof(r -> 'device_at') = 'number' AND (r ->> 'device_at') !~ '^-?[0-9]{1,15}$' THEN 'device_at is not a time'
        WHEN octet_length((r -> 'payload')::text) > 16384 THEN 'the payload is over 16 KiB'
        WHEN EXISTS (SELECT 1 FROM cast_team.sessions s WHERE s.id = r ->> 'session_id' AND s.device <> p_device) THEN 'the session is published by another device'
        END;
      IF v_why IS NOT NULL THEN
        v_refused := v_refused || jsonb_build_object('kind', 'event', 'local_seq', r -> 'local_seq', 'why', v_why);
        CONTINUE;
      END IF;
      v_lseq := (r ->> 'local_seq')::bigint;
      IF v_lseq <= v_last THEN
        v_dropped := v_dropped + 1;
        CONTINUE;
      END IF;
      INSERT INTO cast_team.events (seq, device, epoch, local_seq, session_id, kind, device_at, payload, xid)
      VALUES (nextval('cast_team.events_seq_seq'), p_device, p_epoch, v_lseq, r ->> 'session_id', r ->> 'kind',
              CASE WHEN jsonb_typeof(r -> 'device_at') = 'number' THEN (r ->> 'device_at')::bigint END,
              (r -> 'payload') || jsonb_build_object('runner', v_who), v_xid)
      ON CONFLICT (device, epoch, local_seq) DO NOTHING
      RETURNING seq INTO v_seq;
      IF v_seq IS NOT NULL THEN
        v_events := v_events + 1;
        v_max := v_seq;
      END IF;
      v_last := v_lseq;
    END LOOP;

    UPDATE cast_team.machines SET last_seen = now(), last_sync = now(), pending = GREATEST(0, LEAST(COALESCE(p_pending, 0), 2000000000)),
      skew_ms = CASE WHEN p_now_ms IS NULL THEN skew_ms ELSE p_now_ms - (extract(epoch FROM clock_timestamp()) * 1000)::bigint END
     WHERE device = p_device;
    IF v_max IS NOT NULL THEN PERFORM pg_notify('cast_team', v_max::text); END IF;
    RETURN jsonb_build_object('refused', v_refused, 'dropped', v_dropped, 'sessions', v_sessions, 'events', v_events, 'seq', v_max);
  END $f$;

  -- Queues an action from one of the caller's devices; requested_by is the caller's identity.
  -- The signature is stored as given (the executing machine verifies it). At most 100 of a
  -- member's actions wait at a time, so no one floods a machine's executor.
  CREATE FUNCTION cast_team.queue_action(p_uid uuid, p_device text, p_session_id text, p_verb text, p_args jsonb,
                                         p_requested_from text, p_expires_at timestamptz, p_sig text) RETURNS bigint
  LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_who text := cast_team.caller(); v_id bigint; v_by text;
  BEGIN
    PERFORM cast_team.own_device(p_requested_from);
    IF p_uid IS NULL THEN RAISE EXCEPTION 'an action needs its uid' USING ERRCODE = '22023'; END IF;
    IF NOT EXISTS (SELECT 1 FROM cast_team.machines WHERE device = p_device) THEN
      RAISE EXCEPTION 'no device % in the team', p_device USING ERRCODE = '42704';
    END IF;
    IF p_verb IS NULL OR p_verb !~ '^[a-z_]{1,20}$' THEN RAISE EXCEPTION 'no such action' USING ERRCODE = '22023'; END IF;
    IF p_session_id IS NULL OR length(p_session_id) NOT BETWEEN 1 AND 200 THEN RAISE EXCEPTION 'no session id' USING ERRCODE = '22023'; END IF;
    IF jsonb_typeof(p_args) IS DISTINCT FROM 'object' OR octet_length(p_args::text) > 16384 THEN
      RAISE EXCEPTION 'arguments are an object of at most 16 KiB' USING ERRCODE = '22023';
    END IF;
    IF p_sig IS NOT NULL AND length(p_sig) > 1024 THEN RAISE EXCEPTION 'a signature is at most 1024 characters' USING ERRCODE = '22023'; END IF;
    IF p_expires_at IS NOT NULL AND p_expires_at > now() + interval '7 days' THEN
      RAISE EXCEPTION 'an action expires within 7 days' USING ERRCODE = '22023';
    END IF;
    IF (SELECT count(*) FROM cast_team.actions WHERE requested_by = v_who AND status IN ('queued', 'running')) >= 100 THEN
      RAISE EXCEPTION '% has 100 actions not yet carried out; wait for them', v_who USING ERRCODE = '54000';
    END IF;
    SELECT id, requested_by INTO v_id, v_by FROM cast_team.actions WHERE uid = p_uid;
    IF FOUND THEN
      IF v_by = v_who THEN RETURN v_id; END IF;
      RAISE EXCEPTION 'action % exists', p_uid USING ERRCODE = '23505';
    END IF;
    INSERT INTO cast_team.actions (uid, device, session_id, verb, args, requested_by, requested_from, expires_at, sig)
      VALUES (p_uid, p_device, p_session_id, p_verb, p_args, v_who, p_requested_from, p_expires_at, p_sig)
      RETURNING id INTO v_id;
    PERFORM pg_notify('cast_actions', p_device);
    RETURN v_id;
  END $f$;

  -- Claims up to p_limit queued actions for one of the caller's devices, oldest first.
  CREATE FUNCTION cast_team.claim_actions(p_device text, p_limit integer) RETURNS SETOF cast_team.actions
  LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  BEGIN
    PERFORM cast_team.own_device(p_device);
    RETURN QUERY
      WITH u AS (
        UPDATE cast_team.actions SET status = 'running', claimed_at = now()
         WHERE id IN (SELECT id FROM cast_team.actions WHERE device = p_device AND status = 'queued'
                       ORDER BY id LIMIT LEAST(GREATEST(COALESCE(p_limit, 20), 1), 100) FOR UPDATE SKIP LOCKED)
        RETURNING *)
      SELECT * FROM u ORDER BY u.id;
  END $f$;

  -- Reports an action's outcome (delivered or refused) for an action queued for one of the caller's devices.
  CREATE FUNCTION cast_team.report_action(p_id bigint, p_status text, p_result jsonb) RETURNS boolean
  LANGUAGE plpgsql VOLATILE ${DEFINER} AS $f$
  DECLARE v_device text; v_n integer;
  BEGIN
    PERFORM cast_team.caller();
    SELECT device INTO v_device FROM cast_team.actions WHERE id = p_id;
    IF NOT FOUND THEN RAISE EXCEPTION 'no action %', p_id USING ERRCODE = '42704'; END IF;
    PERFORM cast_team.own_device(v_device);
    IF p_status NOT IN ('delivered', 'refused') THEN RAISE EXCEPTION 'an outcome is delivered or refused' USING ERRCODE = '22023'; END IF;
    IF p_result IS NOT NULL AND (jsonb_typeof(p_result) <> 'object' OR octet_length(p_result::text) > 65536) THEN
      RAISE EXCEPTION 'a result is an object of at most 64 KiB' USING ERRCODE = '22023';
    END IF;
    UPDATE cast_team.actions SET status = p_status, result = p_result, done_at = now() WHERE id = p_id AND status IN ('queued', 'running');
    GET DIAGNOSTICS v_n = ROW_COUNT;
    PERFORM pg_notify('cast_action_done', p_id::text);
    RETURN v_n > 0;
  END $f$;

  REVOKE ALL ON ALL TABLES IN SCHEMA cast_team FROM PUBLIC, cast_member;
  REVOKE ALL ON ALL SEQUENCES IN SCHEMA cast_team FROM PUBLIC, cast_member;
  REVOKE ALL ON ALL FUNCTIONS IN SCHEMA cast_team FROM PUBLIC;
  GRANT USAGE ON SCHEMA cast_team TO cast_member, cast_team_admin;
  GRANT SELECT ON ALL TABLES IN SCHEMA cast_team TO cast_member, cast_team_admin;
  GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA cast_team TO cast_member, cast_team_admin;
`
