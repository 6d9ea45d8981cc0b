CREATE TABLE "console_flashes" (
	"session_id" uuid PRIMARY KEY NOT NULL,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "console_flashes" ADD CONSTRAINT "console_flashes_session_id_console_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."console_sessions"("id") ON DELETE cascade ON UPDATE no action;