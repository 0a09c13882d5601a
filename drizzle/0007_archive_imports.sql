CREATE TABLE `import_sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`source_key` text NOT NULL,
	`note_id` integer NOT NULL,
	`hash` text NOT NULL,
	`note_updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `import_sources_user_key_idx` ON `import_sources` (`user_id`,`source_key`);--> statement-breakpoint
CREATE INDEX `import_sources_note_idx` ON `import_sources` (`note_id`);--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `counts` text;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `failures` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `archive_file` text;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `archive_format` text;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `cursor` integer DEFAULT 0 NOT NULL;