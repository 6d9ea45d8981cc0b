CREATE TABLE "interaction_holders" (
	"workspace_id" uuid NOT NULL,
	"interaction_id" uuid NOT NULL,
	"connection_id" uuid NOT NULL,
	CONSTRAINT "interaction_holders_interaction_id_connection_id_pk" PRIMARY KEY("interaction_id","connection_id")
);
--> statement-breakpoint
ALTER TABLE "interaction_holders" ADD CONSTRAINT "interaction_holders_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interaction_holders" ADD CONSTRAINT "interaction_holders_interaction_id_interactions_id_fk" FOREIGN KEY ("interaction_id") REFERENCES "public"."interactions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interaction_holders" ADD CONSTRAINT "interaction_holders_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "interaction_holders_connection_idx" ON "interaction_holders" USING btree ("connection_id");