CREATE TABLE "eval_feedback" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"eval_slug" text NOT NULL,
	"user_id" uuid NOT NULL,
	"evidence_kind" text NOT NULL,
	"adopted" boolean NOT NULL,
	"note" text,
	"applied_to_kind" text,
	"applied_to_id" text,
	"verified" boolean,
	"verification_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_evals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"version" text NOT NULL,
	"input_schema" jsonb NOT NULL,
	"graders" jsonb NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "eval_feedback" ADD CONSTRAINT "eval_feedback_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_evals" ADD CONSTRAINT "workspace_evals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "eval_feedback_run_idx" ON "eval_feedback" USING btree ("workspace_id","run_id");--> statement-breakpoint
CREATE INDEX "eval_feedback_slug_idx" ON "eval_feedback" USING btree ("workspace_id","eval_slug","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_evals_slug_idx" ON "workspace_evals" USING btree ("workspace_id","slug");--> statement-breakpoint
CREATE INDEX "runs_eval_reuse_idx" ON "runs" USING btree ("workspace_id",("input"->>'reuse_key')) WHERE "runs"."kind" = 'eval_run';