CREATE TABLE "connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"connector_type" text NOT NULL,
	"display_name" text,
	"status" text NOT NULL,
	"owner_user_id" uuid,
	"created_by" uuid NOT NULL,
	"caller" jsonb NOT NULL,
	"credentials_sealed" text,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cursors" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_synced_at" timestamp with time zone,
	"auth_failed_at" timestamp with time zone,
	"rate_limited_until" timestamp with time zone,
	"next_sync_at" timestamp with time zone,
	"disconnected_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connections_status_check" CHECK ("connections"."status" in ('pending', 'connected', 'disconnected'))
);
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "connections_workspace_created_idx" ON "connections" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "connections_due_idx" ON "connections" USING btree ("next_sync_at") WHERE "connections"."status" = 'connected';--> statement-breakpoint
CREATE UNIQUE INDEX "connections_workspace_type_name_idx" ON "connections" USING btree ("workspace_id","connector_type","display_name");--> statement-breakpoint
CREATE INDEX "runs_connection_idx" ON "runs" USING btree ("workspace_id",("input"->>'connection_id'),"created_at") WHERE "runs"."kind" = 'connection_sync';--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_source_external_idx" ON "accounts" USING btree ("workspace_id","source","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_source_external_idx" ON "contacts" USING btree ("workspace_id","source","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "deals_source_external_idx" ON "deals" USING btree ("workspace_id","source","external_id");