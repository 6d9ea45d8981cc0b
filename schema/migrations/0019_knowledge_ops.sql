CREATE TABLE "memory_evidence" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"text" text NOT NULL,
	"text_hash" text GENERATED ALWAYS AS (md5("text")) STORED NOT NULL,
	"source" text NOT NULL,
	"company_name" text,
	"account_id" uuid,
	"created_by" uuid,
	"run_id" uuid,
	"origin" text NOT NULL,
	"embedder" text,
	"embedding" vector(384),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_evidence_source_check" CHECK ("memory_evidence"."source" in ('web', 'kg', 'reference_doc', 'bigquery', 'cluster')),
	CONSTRAINT "memory_evidence_text_length_check" CHECK (char_length("memory_evidence"."text") between 1 and 4000),
	CONSTRAINT "memory_evidence_company_length_check" CHECK ("memory_evidence"."company_name" is null or char_length("memory_evidence"."company_name") <= 200)
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sessions_name_length_check" CHECK ("sessions"."name" is null or char_length("sessions"."name") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "memory_evidence" ADD CONSTRAINT "memory_evidence_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_evidence" ADD CONSTRAINT "memory_evidence_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_evidence" ADD CONSTRAINT "memory_evidence_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "memory_evidence_text_idx" ON "memory_evidence" USING btree ("workspace_id","text_hash");--> statement-breakpoint
CREATE INDEX "memory_evidence_workspace_created_idx" ON "memory_evidence" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "memory_evidence_account_idx" ON "memory_evidence" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "memory_evidence_fts_idx" ON "memory_evidence" USING gin (to_tsvector('english', "text"));--> statement-breakpoint
CREATE INDEX "sessions_workspace_created_idx" ON "sessions" USING btree ("workspace_id","created_at");