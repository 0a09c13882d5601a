ALTER TABLE `notes` ADD `source_platform` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `source_url` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `source_author` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `source_published_at` integer;