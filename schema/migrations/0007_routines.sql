CREATE TABLE "routine_fires" (
	"routine_id" uuid NOT NULL,
	"scheduled_for" timestamp with time zone NOT NULL,
	"workspace_id" uuid NOT NULL,
	"trigger" text NOT NULL,
	"run_id" uuid,
	"chat_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "routine_fires_routine_id_scheduled_for_pk" PRIMARY KEY("routine_id","scheduled_for")
);
--> statement-breakpoint
CREATE TABLE "routines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"prompt" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"agent" text,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"enabled" boolean NOT NULL,
	"created_by" uuid NOT NULL,
	"caller" jsonb NOT NULL,
	"next_run_at" timestamp with time zone,
	"last_fired_for" timestamp with time zone,
	"last_chat_id" uuid,
	"last_run_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "routine_fires" ADD CONSTRAINT "routine_fires_routine_id_routines_id_fk" FOREIGN KEY ("routine_id") REFERENCES "public"."routines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routines" ADD CONSTRAINT "routines_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "routines_workspace_created_idx" ON "routines" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "routines_due_idx" ON "routines" USING btree ("next_run_at") WHERE "routines"."enabled";