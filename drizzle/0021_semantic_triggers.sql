-- Custom SQL migration file, put your code below! ---- A note whose title, content or tags change is embedded again (every writer: the API, imports,
-- restores); a deleted or trashed note's vectors are cleared by the embedding job.
CREATE TRIGGER `notes_semantic_after_edit` AFTER UPDATE OF `title`, `content`, `tags` ON `notes` BEGIN
  DELETE FROM `semantic_notes` WHERE `note_id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_semantic_after_delete` AFTER DELETE ON `notes` BEGIN
  INSERT OR REPLACE INTO `semantic_removed` (`note_id`, `user_id`) VALUES (OLD.`id`, OLD.`user_id`);
END;
