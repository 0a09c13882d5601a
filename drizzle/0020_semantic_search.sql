CREATE TABLE `semantic_notes` (
	`note_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`space_key` text NOT NULL,
	`embedded_at` integer NOT NULL,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `semantic_notes_user_space_idx` ON `semantic_notes` (`user_id`,`space_key`);--> statement-breakpoint
CREATE TABLE `semantic_removed` (
	`note_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `semantic_removed_user_idx` ON `semantic_removed` (`user_id`);--> statement-breakpoint
CREATE TABLE `semantic_spaces` (
	`key` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`dimensions` integer NOT NULL,
	`table_name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `semantic_users` (
	`user_id` integer NOT NULL,
	`space_key` text NOT NULL,
	`ready_at` integer,
	`error` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `space_key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
