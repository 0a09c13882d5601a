CREATE TABLE `transcript_pieces` (
	`media_key` text NOT NULL,
	`plan` text NOT NULL,
	`idx` integer NOT NULL,
	`start` real NOT NULL,
	`end` real NOT NULL,
	`from_seconds` real NOT NULL,
	`segments` text,
	`text` text DEFAULT '' NOT NULL,
	`language` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`media_key`, `plan`, `idx`)
);
--> statement-breakpoint
CREATE TABLE `transcripts` (
	`media_key` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`segments` text,
	`text` text DEFAULT '' NOT NULL,
	`duration` real NOT NULL,
	`truncated_at` real,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `transcription` text;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `stt_seconds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `stt_requests` integer DEFAULT 0 NOT NULL;