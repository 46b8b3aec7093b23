CREATE TABLE "app"."run_tool_calls" (
	"run_id" text NOT NULL,
	"sequence" integer NOT NULL,
	"tool" text NOT NULL,
	"scope" text,
	"outcome" text NOT NULL,
	"reason" text,
	"argument_bytes" integer NOT NULL,
	"result_bytes" integer NOT NULL,
	"outbound_bytes" integer NOT NULL,
	"duration_ms" integer NOT NULL,
	"called_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_tool_calls_run_id_sequence_pk" PRIMARY KEY("run_id","sequence")
);
