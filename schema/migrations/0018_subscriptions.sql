CREATE TABLE "subscription_fires" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subscription_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"event_start" timestamp with time zone NOT NULL,
	"lead_minutes" integer NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"event" jsonb NOT NULL,
	"claimed_at" timestamp with time zone,
	"run_id" uuid,
	"chat_id" uuid,
	"settled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscription_fires_status_check" CHECK ("subscription_fires"."status" in ('pending', 'fired', 'skipped', 'failed', 'canceled'))
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"source_kind" text NOT NULL,
	"prompt" text NOT NULL,
	"config" jsonb NOT NULL,
	"agent" text,
	"run_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"enabled" boolean NOT NULL,
	"created_by" uuid NOT NULL,
	"caller" jsonb NOT NULL,
	"next_poll_at" timestamp with time zone,
	"last_polled_at" timestamp with time zone,
	"last_poll_error" text,
	"last_fired_at" timestamp with time zone,
	"last_chat_id" uuid,
	"last_run_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "subscription_fires" ADD CONSTRAINT "subscription_fires_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_fires_occurrence_idx" ON "subscription_fires" USING btree ("subscription_id","event_id","event_start","lead_minutes");--> statement-breakpoint
CREATE INDEX "subscription_fires_subscription_due_idx" ON "subscription_fires" USING btree ("subscription_id","due_at");--> statement-breakpoint
CREATE INDEX "subscription_fires_pending_due_idx" ON "subscription_fires" USING btree ("due_at") WHERE "subscription_fires"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "subscription_fires_workspace_fired_idx" ON "subscription_fires" USING btree ("workspace_id","settled_at") WHERE "subscription_fires"."status" = 'fired';--> statement-breakpoint
CREATE INDEX "subscriptions_workspace_created_idx" ON "subscriptions" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "subscriptions_poll_due_idx" ON "subscriptions" USING btree ("next_poll_at") WHERE "subscriptions"."enabled";