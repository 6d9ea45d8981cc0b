CREATE TABLE "utterance_store_counts" (
	"workspace_id" uuid NOT NULL,
	"embedder" text NOT NULL,
	"utterances" integer NOT NULL,
	CONSTRAINT "utterance_store_counts_pkey" PRIMARY KEY("workspace_id","embedder")
);
--> statement-breakpoint
ALTER TABLE "utterance_store_counts" ADD CONSTRAINT "utterance_store_counts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Kept by the database for every writer: one statement-level trigger per event (Postgres allows
-- transition tables on single-event triggers only). Deletes only update: a workspace being deleted
-- may already have lost its row to the cascade, and must not get a new one.
CREATE FUNCTION "utterance_store_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "utterance_store_counts" ("workspace_id", "embedder", "utterances")
  SELECT "workspace_id", "embedder", count(*) FROM "added_rows"
  WHERE "side" = 'external' AND "embedder" IS NOT NULL
  GROUP BY "workspace_id", "embedder"
  ON CONFLICT ("workspace_id", "embedder") DO UPDATE SET "utterances" = "utterance_store_counts"."utterances" + EXCLUDED."utterances";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "utterance_store_counts_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "utterance_store_counts" c SET "utterances" = c."utterances" - r."n"
  FROM (SELECT "workspace_id", "embedder", count(*) AS "n" FROM "removed_rows"
        WHERE "side" = 'external' AND "embedder" IS NOT NULL GROUP BY "workspace_id", "embedder") r
  WHERE c."workspace_id" = r."workspace_id" AND c."embedder" = r."embedder";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "utterances_count_insert" AFTER INSERT ON "utterances" REFERENCING NEW TABLE AS "added_rows" FOR EACH STATEMENT EXECUTE FUNCTION "utterance_store_counts_add"();
--> statement-breakpoint
CREATE TRIGGER "utterances_count_delete" AFTER DELETE ON "utterances" REFERENCING OLD TABLE AS "removed_rows" FOR EACH STATEMENT EXECUTE FUNCTION "utterance_store_counts_remove"();
--> statement-breakpoint
CREATE TRIGGER "utterances_count_update_old" AFTER UPDATE ON "utterances" REFERENCING OLD TABLE AS "removed_rows" FOR EACH STATEMENT EXECUTE FUNCTION "utterance_store_counts_remove"();
--> statement-breakpoint
CREATE TRIGGER "utterances_count_update_new" AFTER UPDATE ON "utterances" REFERENCING NEW TABLE AS "added_rows" FOR EACH STATEMENT EXECUTE FUNCTION "utterance_store_counts_add"();
--> statement-breakpoint
INSERT INTO "utterance_store_counts" ("workspace_id", "embedder", "utterances")
SELECT "workspace_id", "embedder", count(*) FROM "utterances"
WHERE "side" = 'external' AND "embedder" IS NOT NULL
GROUP BY "workspace_id", "embedder";
