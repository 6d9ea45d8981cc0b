-- The SQL query operation's views (functions/sql-query/): the only relations caller SQL may name.
-- Each view keeps one workspace's rows: the workspace id is read from the transaction-local setting
-- cip.query_workspace, which the server sets with set_config(..., true) inside the read-only
-- transaction it runs the caller's SELECT in (the caller can name neither set_config nor
-- current_setting). Unset, the setting is NULL and every view is empty. security_barrier keeps the
-- workspace filter ahead of any condition the caller adds.
CREATE SCHEMA IF NOT EXISTS ws_views;
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.accounts WITH (security_barrier = true) AS
  SELECT id, name, domain, type, industry, employee_count, region, owner_email, source, created_at
  FROM public.accounts
  WHERE workspace_id = nullif(current_setting('cip.query_workspace', true), '')::uuid;
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.contacts WITH (security_barrier = true) AS
  SELECT id, account_id, name, email, title, is_champion, is_buyer, left_at, source
  FROM public.contacts
  WHERE workspace_id = nullif(current_setting('cip.query_workspace', true), '')::uuid;
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.deals WITH (security_barrier = true) AS
  SELECT id, account_id, name, stage, amount, currency, close_date, owner_email, probability, is_closed, is_won,
    source, occurred_at, updated_at
  FROM public.deals
  WHERE workspace_id = nullif(current_setting('cip.query_workspace', true), '')::uuid;
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.interactions WITH (security_barrier = true) AS
  SELECT id, kind, title, account_id, deal_id, occurred_at, duration_seconds, direction, source, thread_id, summary,
    participant_count, external_participant_count
  FROM public.interactions
  WHERE workspace_id = nullif(current_setting('cip.query_workspace', true), '')::uuid;
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.participants WITH (security_barrier = true) AS
  SELECT id, interaction_id, contact_id, name, email, side, role
  FROM public.participants
  WHERE workspace_id = nullif(current_setting('cip.query_workspace', true), '')::uuid;
--> statement-breakpoint
CREATE OR REPLACE VIEW ws_views.transcript_turns WITH (security_barrier = true) AS
  SELECT id, interaction_id, turn_index, speaker_name, speaker_email, side, text, occurred_at
  FROM public.transcript_turns
  WHERE workspace_id = nullif(current_setting('cip.query_workspace', true), '')::uuid;
