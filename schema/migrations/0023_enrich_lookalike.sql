CREATE TABLE "centroid_materializations" (
	"workspace_id" uuid NOT NULL,
	"embedder" text NOT NULL,
	"store_utterances" integer NOT NULL,
	"centroids" integer NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"run_id" uuid,
	CONSTRAINT "centroid_materializations_pkey" PRIMARY KEY("workspace_id","embedder")
);
--> statement-breakpoint
CREATE TABLE "entity_centroids" (
	"workspace_id" uuid NOT NULL,
	"embedder" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"embedding" vector(384) NOT NULL,
	"member_count" integer NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "entity_centroids_pkey" PRIMARY KEY("workspace_id","embedder","entity_type","entity_id"),
	CONSTRAINT "entity_centroids_type_check" CHECK ("entity_centroids"."entity_type" in ('company', 'deal')),
	CONSTRAINT "entity_centroids_members_check" CHECK ("entity_centroids"."member_count" > 0)
);
--> statement-breakpoint
CREATE TABLE "enrichment_briefs" (
	"workspace_id" uuid NOT NULL,
	"subject_kind" text NOT NULL,
	"subject_key" text NOT NULL,
	"artifact_id" uuid,
	"brief" jsonb,
	"captured_at" timestamp with time zone,
	"refresh_run_id" uuid,
	"refresh_requested_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "enrichment_briefs_pkey" PRIMARY KEY("workspace_id","subject_kind","subject_key"),
	CONSTRAINT "enrichment_briefs_kind_check" CHECK ("enrichment_briefs"."subject_kind" in ('company', 'person', 'topic')),
	CONSTRAINT "enrichment_briefs_captured_check" CHECK (("enrichment_briefs"."brief" is null) = ("enrichment_briefs"."captured_at" is null))
);
--> statement-breakpoint
ALTER TABLE "centroid_materializations" ADD CONSTRAINT "centroid_materializations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_centroids" ADD CONSTRAINT "entity_centroids_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrichment_briefs" ADD CONSTRAINT "enrichment_briefs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrichment_briefs" ADD CONSTRAINT "enrichment_briefs_artifact_id_artifacts_id_fk" FOREIGN KEY ("artifact_id") REFERENCES "public"."artifacts"("id") ON DELETE set null ON UPDATE no action;