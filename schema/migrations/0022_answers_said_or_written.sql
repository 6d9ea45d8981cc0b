CREATE INDEX "interactions_summary_trgm_idx" ON "interactions" USING gin ("summary" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "interactions_body_trgm_idx" ON "interactions" USING gin ("body" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "transcript_turns_text_trgm_idx" ON "transcript_turns" USING gin ("text" gin_trgm_ops);