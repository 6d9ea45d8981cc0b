ALTER TABLE "runs" ADD COLUMN "caller" jsonb;--> statement-breakpoint
CREATE INDEX "runs_parent_idx" ON "runs" USING btree ("parent_run_id");