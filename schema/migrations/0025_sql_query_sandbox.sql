-- Caller SQL (functions/sql-query/) runs as the least-privilege role cip_query, never as the role that
-- owns the tables. What isolates one workspace from another is then below the parser guard:
--   * cip_query owns nothing and may read only the ws_views views (SELECT) and call only an allow-list of
--     functions (below: revoked from PUBLIC everything else, where this migration may);
--   * each view keeps the rows of the workspace bound to the current transaction in
--     query_guard.bindings, a table cip_query cannot write: the server binds it (bind_workspace) before it
--     switches the transaction to read-only, and a read-only transaction cannot go back to read-write,
--     so the caller's statement can neither bind another workspace nor change the binding. The server
--     rolls every caller transaction back, so no binding (and no setting the caller changed) outlives it.
-- Replaces the transaction-local setting cip.query_workspace, which any role can change with set_config.
CREATE SCHEMA IF NOT EXISTS query_guard;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS query_guard.bindings (
  xact xid8 PRIMARY KEY DEFAULT pg_current_xact_id(),
  workspace_id uuid NOT NULL
);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION query_guard.bind_workspace(ws uuid) RETURNS void
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $$ INSERT INTO query_guard.bindings (workspace_id) VALUES (ws) $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION query_guard.bound_workspace() RETURNS uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $$ SELECT workspace_id FROM query_guard.bindings WHERE xact = pg_current_xact_id() $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION query_guard.bind_workspace(uuid) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION query_guard.bound_workspace() FROM PUBLIC;
--> statement-breakpoint
-- The binding is read once per statement (an InitPlan), not once per row.
CREATE OR REPLACE VIEW ws_views.accounts WITH (security_barrier = true) AS
  SELECT id, name, domain, type, industry, employee_count, region, owner_email, source, created_at
  FROM public.accounts
  WHERE workspace_id = (SELECT query_guard.bound_workspace());
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.contacts WITH (security_barrier = true) AS
  SELECT id, account_id, name, email, title, is_champion, is_buyer, left_at, source
  FROM public.contacts
  WHERE workspace_id = (SELECT query_guard.bound_workspace());
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.deals WITH (security_barrier = true) AS
  SELECT id, account_id, name, stage, amount, currency, close_date, owner_email, probability, is_closed, is_won,
    source, occurred_at, updated_at
  FROM public.deals
  WHERE workspace_id = (SELECT query_guard.bound_workspace());
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.interactions WITH (security_barrier = true) AS
  SELECT id, kind, title, account_id, deal_id, occurred_at, duration_seconds, direction, source, thread_id, summary,
    participant_count, external_participant_count
  FROM public.interactions
  WHERE workspace_id = (SELECT query_guard.bound_workspace());
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.participants WITH (security_barrier = true) AS
  SELECT id, interaction_id, contact_id, name, email, side, role
  FROM public.participants
  WHERE workspace_id = (SELECT query_guard.bound_workspace());
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.transcript_turns WITH (security_barrier = true) AS
  SELECT id, interaction_id, turn_index, speaker_name, speaker_email, side, text, occurred_at
  FROM public.transcript_turns
  WHERE workspace_id = (SELECT query_guard.bound_workspace());
--> statement-breakpoint
REVOKE ALL ON ALL TABLES IN SCHEMA ws_views FROM PUBLIC;
--> statement-breakpoint
-- The role: made here where the migrating role may create roles (PGlite, a superuser); on a managed
-- PostgreSQL (Neon) the operator creates it first, as a LOGIN role with a password, and points
-- SQL_QUERY_DATABASE_URL at it (docs: operate/security). Roles are per cluster: another database's
-- migration may create it at the same moment.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cip_query') THEN
    BEGIN
      CREATE ROLE cip_query NOLOGIN NOSUPERUSER NOINHERIT NOCREATEDB NOCREATEROLE NOBYPASSRLS;
    EXCEPTION
      WHEN duplicate_object THEN NULL;
      WHEN insufficient_privilege THEN
        RAISE NOTICE 'cip_query was not created (no CREATEROLE): SQL query is refused until an operator creates it';
    END;
  END IF;
END $$;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'cip_query') THEN
    GRANT USAGE ON SCHEMA ws_views TO cip_query;
    GRANT SELECT ON ALL TABLES IN SCHEMA ws_views TO cip_query;
    -- bind_workspace: for a server that connects as cip_query itself (SQL_QUERY_DATABASE_URL); it writes,
    -- so it fails in the read-only transaction the caller's statement runs in.
    GRANT USAGE ON SCHEMA query_guard TO cip_query;
    GRANT EXECUTE ON FUNCTION query_guard.bind_workspace(uuid), query_guard.bound_workspace() TO cip_query;
  END IF;
END $$;
--> statement-breakpoint
-- EXECUTE only on an allow-list: the parser guard's functions (functions/sql-query/guard.ts; a test keeps
-- the two lists equal), what operators and casts call, and nothing else. Functions are PUBLIC's by default,
-- so the rest is revoked from PUBLIC; only a superuser owns pg_catalog's functions and may do that. The
-- server then runs caller SQL under SET ROLE on its own connection only when cip_query cannot call
-- set_config (which could SET ROLE back): see functions/sql-query/sandbox.ts.
DO $$
DECLARE
  fn regprocedure;
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    RETURN;
  END IF;
  FOR fn IN
    SELECT p.oid::regprocedure
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname IN ('pg_catalog', 'public', 'information_schema')
      AND p.proname NOT IN (
        'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every', 'string_agg', 'array_agg',
        'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp', 'percentile_cont',
        'percentile_disc', 'mode', 'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile',
        'lag', 'lead', 'first_value', 'last_value', 'nth_value', 'abs', 'ceil', 'ceiling', 'floor', 'round',
        'trunc', 'sign', 'greatest', 'least', 'nullif', 'lower', 'upper', 'length', 'char_length', 'btrim',
        'ltrim', 'rtrim', 'trim', 'substr', 'substring', 'left', 'right', 'position', 'strpos', 'replace',
        'split_part', 'concat', 'concat_ws', 'initcap', 'starts_with', 'date_trunc', 'date_part', 'extract',
        'age', 'now', 'to_char', 'make_date', 'coalesce', 'array_length', 'cardinality')
      AND p.oid NOT IN (SELECT oprcode FROM pg_operator WHERE oprcode <> 0)
      AND p.oid NOT IN (SELECT castfunc FROM pg_cast WHERE castfunc <> 0)
      AND has_function_privilege('public', p.oid, 'EXECUTE')
  LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
  END LOOP;
END $$;
