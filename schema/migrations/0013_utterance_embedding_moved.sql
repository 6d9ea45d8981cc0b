ALTER TABLE "utterances" DROP CONSTRAINT "utterances_embedder_check";--> statement-breakpoint
DROP INDEX "utterances_external_vectors_idx";--> statement-breakpoint
CREATE INDEX "utterances_external_vectors_idx" ON "utterances" USING btree ("workspace_id","embedder","occurred_at") WHERE "utterances"."side" = 'external' and "utterances"."embedder" is not null;--> statement-breakpoint
ALTER TABLE "utterances" DROP COLUMN "embedding";