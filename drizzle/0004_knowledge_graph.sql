CREATE TABLE `graph_builds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`progress` integer DEFAULT 0 NOT NULL,
	`message` text NOT NULL,
	`error` text,
	`notes_total` integer DEFAULT 0 NOT NULL,
	`notes_processed` integer DEFAULT 0 NOT NULL,
	`failed_notes` text DEFAULT '[]' NOT NULL,
	`llm_calls` integer DEFAULT 0 NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `graph_builds_user_idx` ON `graph_builds` (`user_id`,"id" desc);--> statement-breakpoint
CREATE UNIQUE INDEX `graph_builds_one_running_idx` ON `graph_builds` (`user_id`) WHERE "graph_builds"."status" = 'building';--> statement-breakpoint
CREATE TABLE `graph_edges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`target_id` integer NOT NULL,
	`label` text NOT NULL,
	`weight` integer NOT NULL,
	`note_ids` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`) REFERENCES `graph_nodes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_id`) REFERENCES `graph_nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `graph_edges_user_pair_idx` ON `graph_edges` (`user_id`,`source_id`,`target_id`,`label`);--> statement-breakpoint
CREATE INDEX `graph_edges_source_idx` ON `graph_edges` (`source_id`);--> statement-breakpoint
CREATE INDEX `graph_edges_target_idx` ON `graph_edges` (`target_id`);--> statement-breakpoint
CREATE TABLE `graph_mentions` (
	`node_id` integer NOT NULL,
	`note_id` integer NOT NULL,
	`start` integer NOT NULL,
	`end` integer NOT NULL,
	`passage` text NOT NULL,
	PRIMARY KEY(`node_id`, `note_id`, `start`),
	FOREIGN KEY (`node_id`) REFERENCES `graph_nodes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `graph_mentions_note_idx` ON `graph_mentions` (`note_id`);--> statement-breakpoint
CREATE TABLE `graph_nodes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`label` text NOT NULL,
	`type` text NOT NULL,
	`description` text NOT NULL,
	`weight` integer NOT NULL,
	`degree` integer NOT NULL,
	`community` integer NOT NULL,
	`note_ids` text NOT NULL,
	`aliases` text DEFAULT '[]' NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `graph_nodes_user_key_idx` ON `graph_nodes` (`user_id`,`key`);--> statement-breakpoint
CREATE INDEX `graph_nodes_user_weight_idx` ON `graph_nodes` (`user_id`,"weight" desc,`id`);--> statement-breakpoint
CREATE TABLE `graph_note_extractions` (
	`note_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`content_hash` text NOT NULL,
	`build_id` integer NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`result` text NOT NULL,
	`extracted_at` integer NOT NULL,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `graph_note_extractions_user_idx` ON `graph_note_extractions` (`user_id`);