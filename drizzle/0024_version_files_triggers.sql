-- Custom SQL migration file, put your code below! ---- A version that goes (pruned past NOTE_VERSIONS_MAX, or purged with its note) lets go of the files
-- it showed: they are queued in `file_releases`, and go unless something else still shows them.
CREATE TRIGGER `note_versions_release_files` AFTER DELETE ON `note_versions` BEGIN
  INSERT OR IGNORE INTO `file_releases` (`user_id`, `file_id`)
    SELECT `user_id`, `file_id` FROM `note_version_files` WHERE `note_id` = OLD.`note_id` AND `version` = OLD.`version`;
  DELETE FROM `note_version_files` WHERE `note_id` = OLD.`note_id` AND `version` = OLD.`version`;
END;
--> statement-breakpoint
-- Versions written before their files were recorded: read once, before any of the user's files is let go.
INSERT OR IGNORE INTO `version_files_backlog` (`note_id`, `user_id`) SELECT DISTINCT `note_id`, `user_id` FROM `note_versions`;
