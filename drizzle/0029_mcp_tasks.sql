CREATE TABLE `mcp_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`tool` text NOT NULL,
	`record_id` integer,
	`status` text NOT NULL,
	`status_message` text,
	`result` text,
	`error` text,
	`ttl_ms` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mcp_tasks_expires_idx` ON `mcp_tasks` (`expires_at`);