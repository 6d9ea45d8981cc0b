CREATE TABLE "utterance_vectors" (
	"workspace_id" uuid NOT NULL,
	"embedder" text NOT NULL,
	"text_hash" text NOT NULL,
	"embedding" vector(384) NOT NULL,
	CONSTRAINT "utterance_vectors_pkey" PRIMARY KEY("workspace_id","embedder","text_hash")
);
--> statement-breakpoint
ALTER TABLE "utterances" ADD COLUMN "text_hash" text GENERATED ALWAYS AS (md5("text")) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "utterance_vectors" ADD CONSTRAINT "utterance_vectors_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "utterances_external_text_idx" ON "utterances" USING btree ("workspace_id","embedder","text_hash") WHERE "utterances"."side" = 'external' and "utterances"."embedder" is not null;--> statement-breakpoint
-- Data: each workspace's distinct external texts, one vector per embedder (the first utterance's).
INSERT INTO "utterance_vectors" ("workspace_id", "embedder", "text_hash", "embedding")
SELECT DISTINCT ON ("workspace_id", "embedder", "text_hash") "workspace_id", "embedder", "text_hash", "embedding"
FROM "utterances"
WHERE "side" = 'external' AND "embedding" IS NOT NULL
ORDER BY "workspace_id", "embedder", "text_hash", "id";
