CREATE TABLE `feed_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`feed_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`guid` text NOT NULL,
	`title` text,
	`url` text,
	`published_at` integer,
	`sort_at` integer NOT NULL,
	`state` text NOT NULL,
	`task_id` integer,
	`pending` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feed_items_feed_guid_idx` ON `feed_items` (`feed_id`,`guid`);--> statement-breakpoint
CREATE INDEX `feed_items_feed_sort_idx` ON `feed_items` (`feed_id`,"sort_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX `feed_items_task_idx` ON `feed_items` (`task_id`);--> statement-breakpoint
CREATE TABLE `feeds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`url` text NOT NULL,
	`title` text,
	`site_url` text,
	`kind` text NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`interval_minutes` integer DEFAULT 60 NOT NULL,
	`backfill` integer DEFAULT 5 NOT NULL,
	`paused` integer DEFAULT false NOT NULL,
	`etag` text,
	`last_modified` text,
	`last_fetched_at` integer,
	`next_fetch_at` integer NOT NULL,
	`last_error` text,
	`failing_since` integer,
	`failures` integer DEFAULT 0 NOT NULL,
	`backfilled` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feeds_user_url_idx` ON `feeds` (`user_id`,`url`);--> statement-breakpoint
CREATE INDEX `feeds_due_idx` ON `feeds` (`paused`,`next_fetch_at`);--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `feed_id` integer;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `document` text;--> statement-breakpoint
ALTER TABLE `import_tasks` ADD `tags` text;--> statement-breakpoint
CREATE INDEX `import_tasks_feed_idx` ON `import_tasks` (`feed_id`);