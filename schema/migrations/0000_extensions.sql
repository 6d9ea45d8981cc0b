-- drizzle-kit does not emit CREATE EXTENSION; every later migration relies on these.
CREATE EXTENSION IF NOT EXISTS vector;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;
