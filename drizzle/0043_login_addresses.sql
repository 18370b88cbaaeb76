CREATE TABLE "login_successes" (
	"email_key" text NOT NULL,
	"ip" text NOT NULL,
	"succeeded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "login_successes_email_key_ip_pk" PRIMARY KEY("email_key","ip")
);
--> statement-breakpoint
ALTER TABLE "login_successes" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "login_failures" ADD COLUMN "ip" text;