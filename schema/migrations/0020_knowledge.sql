CREATE TABLE "context_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"user_id" uuid,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "context_entries_scope_check" CHECK ("context_entries"."scope" in ('workspace', 'member')),
	CONSTRAINT "context_entries_member_check" CHECK (("context_entries"."scope" = 'member') = ("context_entries"."user_id" is not null))
);
--> statement-breakpoint
CREATE TABLE "context_entry_attachments" (
	"context_entry_id" uuid NOT NULL,
	"file_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "context_entry_attachments_pkey" PRIMARY KEY("context_entry_id","file_id")
);
--> statement-breakpoint
CREATE TABLE "document_groups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"file_id" uuid NOT NULL,
	"title" text NOT NULL,
	"format" text NOT NULL,
	"status" text NOT NULL,
	"node_count" integer,
	"embedded_count" integer DEFAULT 0 NOT NULL,
	"run_id" uuid,
	"error" text,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "document_groups_status_check" CHECK ("document_groups"."status" in ('processing', 'ready', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "knowledge_node_vectors" (
	"workspace_id" uuid NOT NULL,
	"document_group_id" uuid NOT NULL,
	"node_key" text NOT NULL,
	"embedder" text NOT NULL,
	"embedding" vector(384) NOT NULL,
	CONSTRAINT "knowledge_node_vectors_pkey" PRIMARY KEY("document_group_id","node_key","embedder")
);
--> statement-breakpoint
CREATE TABLE "knowledge_nodes" (
	"workspace_id" uuid NOT NULL,
	"document_group_id" uuid NOT NULL,
	"node_key" text NOT NULL,
	"kind" text NOT NULL,
	"position" integer NOT NULL,
	"page" integer,
	"heading" text NOT NULL,
	"text" text NOT NULL,
	CONSTRAINT "knowledge_nodes_pkey" PRIMARY KEY("document_group_id","node_key"),
	CONSTRAINT "knowledge_nodes_kind_check" CHECK ("knowledge_nodes"."kind" in ('section', 'paragraph', 'table_row'))
);
--> statement-breakpoint
CREATE TABLE "pins" (
	"workspace_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"document_group_id" uuid NOT NULL,
	"node_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pins_pkey" PRIMARY KEY("workspace_id","user_id","document_group_id","node_key")
);
--> statement-breakpoint
CREATE TABLE "stored_files" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"byte_size" integer NOT NULL,
	"storage_key" text NOT NULL,
	"sha256" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stored_files_purpose_check" CHECK ("stored_files"."purpose" in ('library', 'knowledge', 'context_attachment'))
);
--> statement-breakpoint
ALTER TABLE "context_entries" ADD CONSTRAINT "context_entries_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_entries" ADD CONSTRAINT "context_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_entries" ADD CONSTRAINT "context_entries_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_entry_attachments" ADD CONSTRAINT "context_entry_attachments_context_entry_id_context_entries_id_fk" FOREIGN KEY ("context_entry_id") REFERENCES "public"."context_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_entry_attachments" ADD CONSTRAINT "context_entry_attachments_file_id_stored_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."stored_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_groups" ADD CONSTRAINT "document_groups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_groups" ADD CONSTRAINT "document_groups_file_id_stored_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."stored_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_groups" ADD CONSTRAINT "document_groups_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_node_vectors" ADD CONSTRAINT "knowledge_node_vectors_node_fk" FOREIGN KEY ("document_group_id","node_key") REFERENCES "public"."knowledge_nodes"("document_group_id","node_key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_nodes" ADD CONSTRAINT "knowledge_nodes_document_group_id_document_groups_id_fk" FOREIGN KEY ("document_group_id") REFERENCES "public"."document_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pins" ADD CONSTRAINT "pins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pins" ADD CONSTRAINT "pins_node_fk" FOREIGN KEY ("document_group_id","node_key") REFERENCES "public"."knowledge_nodes"("document_group_id","node_key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "context_entries_workspace_idx" ON "context_entries" USING btree ("workspace_id","scope","user_id");--> statement-breakpoint
CREATE INDEX "document_groups_workspace_idx" ON "document_groups" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "knowledge_node_vectors_workspace_idx" ON "knowledge_node_vectors" USING btree ("workspace_id","embedder");--> statement-breakpoint
CREATE INDEX "knowledge_nodes_workspace_idx" ON "knowledge_nodes" USING btree ("workspace_id","document_group_id","position");--> statement-breakpoint
CREATE INDEX "knowledge_nodes_text_search_idx" ON "knowledge_nodes" USING gin (to_tsvector('english', "text"));--> statement-breakpoint
CREATE INDEX "pins_node_idx" ON "pins" USING btree ("document_group_id","node_key");--> statement-breakpoint
CREATE INDEX "stored_files_workspace_idx" ON "stored_files" USING btree ("workspace_id","purpose","created_at");