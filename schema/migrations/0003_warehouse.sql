CREATE TABLE "accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"domain" text,
	"type" text,
	"industry" text,
	"employee_count" integer,
	"region" text,
	"owner_email" text,
	"source" text,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_type_check" CHECK ("accounts"."type" is null or "accounts"."type" in ('customer', 'sales_target', 'investor', 'advisor', 'media', 'competitor', 'vendor', 'partner', 'reseller', 'other'))
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"title" text,
	"is_champion" boolean DEFAULT false NOT NULL,
	"is_buyer" boolean DEFAULT false NOT NULL,
	"left_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deal_qualification" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"deal_id" uuid NOT NULL,
	"framework" text DEFAULT 'MEDDPICC' NOT NULL,
	"criterion" text NOT NULL,
	"status" text NOT NULL,
	"score" smallint NOT NULL,
	"notes" text,
	"assessed_by" text,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "deal_qualification_criterion_check" CHECK ("deal_qualification"."criterion" in ('metrics', 'economic_buyer', 'decision_criteria', 'decision_process', 'paper_process', 'identify_pain', 'champion', 'competition')),
	CONSTRAINT "deal_qualification_status_check" CHECK ("deal_qualification"."status" in ('unknown', 'identified', 'validated', 'at_risk')),
	CONSTRAINT "deal_qualification_score_check" CHECK ("deal_qualification"."score" between 0 and 3)
);
--> statement-breakpoint
CREATE TABLE "deals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"account_id" uuid,
	"name" text NOT NULL,
	"stage" text NOT NULL,
	"amount" numeric(14, 2),
	"currency" text,
	"close_date" date,
	"owner_email" text,
	"probability" integer,
	"is_closed" boolean DEFAULT false NOT NULL,
	"is_won" boolean DEFAULT false NOT NULL,
	"source" text,
	"external_id" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "deals_stage_check" CHECK ("deals"."stage" in ('prospecting', 'discovery', 'evaluation', 'proposal', 'negotiation', 'closed_won', 'closed_lost')),
	CONSTRAINT "deals_probability_check" CHECK ("deals"."probability" is null or "deals"."probability" between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "interactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"account_id" uuid,
	"deal_id" uuid,
	"occurred_at" timestamp with time zone NOT NULL,
	"duration_seconds" integer,
	"direction" text,
	"source" text NOT NULL,
	"external_id" text,
	"thread_id" text,
	"summary" text,
	"body" text,
	"participant_count" integer,
	"external_participant_count" integer,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search_tsv" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce("interactions"."title", '')), 'A') || setweight(to_tsvector('english', coalesce("interactions"."summary", '')), 'B') || setweight(to_tsvector('english', coalesce("interactions"."body", '')), 'C')) STORED,
	CONSTRAINT "interactions_kind_check" CHECK ("interactions"."kind" in ('call', 'meeting', 'email')),
	CONSTRAINT "interactions_direction_check" CHECK ("interactions"."direction" is null or "interactions"."direction" in ('inbound', 'outbound'))
);
--> statement-breakpoint
CREATE TABLE "participants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"interaction_id" uuid NOT NULL,
	"contact_id" uuid,
	"name" text,
	"email" text,
	"side" text NOT NULL,
	"role" text,
	CONSTRAINT "participants_side_check" CHECK ("participants"."side" in ('external', 'internal'))
);
--> statement-breakpoint
CREATE TABLE "transcript_turns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"interaction_id" uuid NOT NULL,
	"turn_index" integer NOT NULL,
	"speaker_name" text,
	"speaker_email" text,
	"side" text NOT NULL,
	"started_at_seconds" real,
	"ended_at_seconds" real,
	"text" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"search_tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', "transcript_turns"."text")) STORED,
	CONSTRAINT "transcript_turns_side_check" CHECK ("transcript_turns"."side" in ('external', 'internal'))
);
--> statement-breakpoint
CREATE TABLE "themes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"label" text NOT NULL,
	"summary" text NOT NULL,
	"embedding" vector(384),
	"embedder" text,
	"member_count" integer NOT NULL,
	"interaction_count" integer NOT NULL,
	"examples" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"first_seen_at" timestamp with time zone,
	"last_seen_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "themes_embedder_check" CHECK (("themes"."embedding" is null) = ("themes"."embedder" is null))
);
--> statement-breakpoint
CREATE TABLE "utterances" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"interaction_id" uuid NOT NULL,
	"turn_id" uuid,
	"utterance_index" integer NOT NULL,
	"side" text NOT NULL,
	"speaker_name" text,
	"text" text NOT NULL,
	"embedding" vector(384),
	"embedder" text,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "utterances_side_check" CHECK ("utterances"."side" in ('external', 'internal')),
	CONSTRAINT "utterances_embedder_check" CHECK (("utterances"."embedding" is null) = ("utterances"."embedder" is null))
);
--> statement-breakpoint
CREATE TABLE "excluded_interactions" (
	"workspace_id" uuid NOT NULL,
	"interaction_id" uuid NOT NULL,
	"reason" text,
	"excluded_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "excluded_interactions_workspace_id_interaction_id_pk" PRIMARY KEY("workspace_id","interaction_id")
);
--> statement-breakpoint
CREATE TABLE "source_freshness" (
	"workspace_id" uuid NOT NULL,
	"source" text NOT NULL,
	"surface" text NOT NULL,
	"latest_event_at" timestamp with time zone,
	"latest_ingest_at" timestamp with time zone,
	"last_sync_at" timestamp with time zone,
	CONSTRAINT "source_freshness_workspace_id_source_surface_pk" PRIMARY KEY("workspace_id","source","surface"),
	CONSTRAINT "source_freshness_surface_check" CHECK ("source_freshness"."surface" in ('interactions', 'deals', 'deal_qualification'))
);
--> statement-breakpoint
CREATE TABLE "demo_corpus_loads" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"seed" integer NOT NULL,
	"scale" real NOT NULL,
	"status" text NOT NULL,
	"embedder" text NOT NULL,
	"counts" jsonb,
	"started_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "demo_corpus_loads_status_check" CHECK ("demo_corpus_loads"."status" in ('loading', 'complete'))
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_qualification" ADD CONSTRAINT "deal_qualification_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_interaction_id_interactions_id_fk" FOREIGN KEY ("interaction_id") REFERENCES "public"."interactions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_turns" ADD CONSTRAINT "transcript_turns_interaction_id_interactions_id_fk" FOREIGN KEY ("interaction_id") REFERENCES "public"."interactions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "themes" ADD CONSTRAINT "themes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "utterances" ADD CONSTRAINT "utterances_interaction_id_interactions_id_fk" FOREIGN KEY ("interaction_id") REFERENCES "public"."interactions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "utterances" ADD CONSTRAINT "utterances_turn_id_transcript_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."transcript_turns"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "excluded_interactions" ADD CONSTRAINT "excluded_interactions_interaction_id_interactions_id_fk" FOREIGN KEY ("interaction_id") REFERENCES "public"."interactions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_freshness" ADD CONSTRAINT "source_freshness_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "demo_corpus_loads" ADD CONSTRAINT "demo_corpus_loads_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "accounts_workspace_name_idx" ON "accounts" USING btree ("workspace_id","name");--> statement-breakpoint
CREATE INDEX "accounts_workspace_domain_idx" ON "accounts" USING btree ("workspace_id","domain");--> statement-breakpoint
CREATE INDEX "accounts_workspace_type_idx" ON "accounts" USING btree ("workspace_id","type");--> statement-breakpoint
CREATE INDEX "contacts_workspace_account_idx" ON "contacts" USING btree ("workspace_id","account_id");--> statement-breakpoint
CREATE INDEX "contacts_workspace_email_idx" ON "contacts" USING btree ("workspace_id",lower("email"));--> statement-breakpoint
CREATE INDEX "deal_qualification_workspace_deal_idx" ON "deal_qualification" USING btree ("workspace_id","deal_id");--> statement-breakpoint
CREATE INDEX "deal_qualification_workspace_occurred_idx" ON "deal_qualification" USING btree ("workspace_id","occurred_at");--> statement-breakpoint
CREATE INDEX "deals_workspace_occurred_idx" ON "deals" USING btree ("workspace_id","occurred_at");--> statement-breakpoint
CREATE INDEX "deals_workspace_account_idx" ON "deals" USING btree ("workspace_id","account_id");--> statement-breakpoint
CREATE INDEX "deals_workspace_stage_idx" ON "deals" USING btree ("workspace_id","stage");--> statement-breakpoint
CREATE INDEX "deals_workspace_close_date_idx" ON "deals" USING btree ("workspace_id","close_date");--> statement-breakpoint
CREATE INDEX "interactions_workspace_occurred_idx" ON "interactions" USING btree ("workspace_id","occurred_at");--> statement-breakpoint
CREATE INDEX "interactions_workspace_account_idx" ON "interactions" USING btree ("workspace_id","account_id");--> statement-breakpoint
CREATE INDEX "interactions_workspace_deal_idx" ON "interactions" USING btree ("workspace_id","deal_id");--> statement-breakpoint
CREATE INDEX "interactions_workspace_source_idx" ON "interactions" USING btree ("workspace_id","source","occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "interactions_source_external_idx" ON "interactions" USING btree ("workspace_id","source","external_id");--> statement-breakpoint
CREATE INDEX "interactions_search_tsv_idx" ON "interactions" USING gin ("search_tsv");--> statement-breakpoint
CREATE INDEX "interactions_title_trgm_idx" ON "interactions" USING gin ("title" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "participants_interaction_idx" ON "participants" USING btree ("interaction_id");--> statement-breakpoint
CREATE INDEX "participants_workspace_contact_idx" ON "participants" USING btree ("workspace_id","contact_id");--> statement-breakpoint
CREATE INDEX "participants_workspace_email_idx" ON "participants" USING btree ("workspace_id",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "transcript_turns_interaction_idx" ON "transcript_turns" USING btree ("interaction_id","turn_index");--> statement-breakpoint
CREATE INDEX "transcript_turns_workspace_occurred_idx" ON "transcript_turns" USING btree ("workspace_id","occurred_at");--> statement-breakpoint
CREATE INDEX "transcript_turns_search_tsv_idx" ON "transcript_turns" USING gin ("search_tsv");--> statement-breakpoint
CREATE UNIQUE INDEX "themes_workspace_label_idx" ON "themes" USING btree ("workspace_id","label");--> statement-breakpoint
CREATE UNIQUE INDEX "utterances_interaction_idx" ON "utterances" USING btree ("interaction_id","utterance_index");--> statement-breakpoint
CREATE INDEX "utterances_turn_idx" ON "utterances" USING btree ("turn_id");--> statement-breakpoint
CREATE INDEX "utterances_workspace_embedder_idx" ON "utterances" USING btree ("workspace_id","embedder");--> statement-breakpoint
CREATE INDEX "utterances_workspace_occurred_idx" ON "utterances" USING btree ("workspace_id","occurred_at");