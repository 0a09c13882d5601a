CREATE TABLE `note_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`note_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`version` integer NOT NULL,
	`title` text NOT NULL,
	`tags` text NOT NULL,
	`size` integer NOT NULL,
	`delta` text NOT NULL,
	`created_at` integer NOT NULL,
	`replaced_at` integer NOT NULL,
	`by_kind` text NOT NULL,
	`by_name` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `note_versions_note_version_idx` ON `note_versions` (`note_id`,`version`);--> statement-breakpoint
CREATE INDEX `note_versions_user_idx` ON `note_versions` (`user_id`);--> statement-breakpoint
CREATE TABLE `trashed_notes` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`excerpt` text NOT NULL,
	`tags` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`source_platform` text,
	`source_url` text,
	`source_author` text,
	`source_published_at` integer,
	`written_by` text,
	`import_sources` text DEFAULT '[]' NOT NULL,
	`deleted_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `trashed_notes_user_deleted_idx` ON `trashed_notes` (`user_id`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `trashed_notes_deleted_idx` ON `trashed_notes` (`deleted_at`);--> statement-breakpoint
ALTER TABLE `notes` ADD `written_by` text;