CREATE TABLE `file_releases` (
	`user_id` integer NOT NULL,
	`file_id` integer NOT NULL,
	PRIMARY KEY(`user_id`, `file_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `note_version_files` (
	`user_id` integer NOT NULL,
	`file_id` integer NOT NULL,
	`note_id` integer NOT NULL,
	`version` integer NOT NULL,
	PRIMARY KEY(`user_id`, `file_id`, `note_id`, `version`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `note_version_files_version_idx` ON `note_version_files` (`note_id`,`version`);--> statement-breakpoint
CREATE TABLE `version_files_backlog` (
	`note_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
