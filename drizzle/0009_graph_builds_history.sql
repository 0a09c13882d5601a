CREATE TABLE `graph_concept_rules` (
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`label` text,
	`type` text,
	`description` text,
	`hidden` integer,
	`merge_into` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `graph_node_keys` (
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`node_id` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`),
	FOREIGN KEY (`node_id`) REFERENCES `graph_nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `graph_node_keys_node_idx` ON `graph_node_keys` (`node_id`);--> statement-breakpoint
CREATE TABLE `graph_note_removals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`note_id` integer NOT NULL,
	`keys` text NOT NULL,
	`removed_labels` text NOT NULL,
	`edges_removed` integer NOT NULL,
	`removed_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `graph_note_removals_user_idx` ON `graph_note_removals` (`user_id`);--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `extractor` text DEFAULT 'local' NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `model` text;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `structured_output` text;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `usage_estimated` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `max_llm_calls` integer;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `max_input_tokens` integer;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `budget_exhausted` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `nodes_added` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `nodes_removed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `edges_added` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `edges_removed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `nodes_merged` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_builds` ADD `diff` text DEFAULT '{"added":[],"removed":[],"merged":[]}' NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_nodes` ADD `stats` text;--> statement-breakpoint
ALTER TABLE `graph_nodes` ADD `hidden` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_note_extractions` ADD `extractor` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_note_extractions` ADD `model` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_note_extractions` ADD `prompt_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `graph_note_extractions` ADD `applied_result` text;--> statement-breakpoint
ALTER TABLE `graph_note_extractions` ADD `applied` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `graph_note_extractions_pending_idx` ON `graph_note_extractions` (`user_id`) WHERE "graph_note_extractions"."applied" = 0;