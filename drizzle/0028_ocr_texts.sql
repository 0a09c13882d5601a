CREATE TABLE `ocr_notes` (
	`note_id` integer PRIMARY KEY NOT NULL,
	`file_ids` text DEFAULT '[]' NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `ocr_texts` (
	`sha256` text PRIMARY KEY NOT NULL,
	`text` text DEFAULT '' NOT NULL,
	`unreadable` text,
	`created_at` integer NOT NULL
);
