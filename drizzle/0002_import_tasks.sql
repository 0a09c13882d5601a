CREATE TABLE `import_tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`platform` text NOT NULL,
	`url` text,
	`content` text,
	`status` text NOT NULL,
	`progress` integer DEFAULT 0 NOT NULL,
	`message` text NOT NULL,
	`error` text,
	`note_id` integer,
	`requeues` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `import_tasks_user_created_idx` ON `import_tasks` (`user_id`,"created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX `import_tasks_status_idx` ON `import_tasks` (`status`,`updated_at`);