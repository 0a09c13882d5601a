-- Custom SQL migration file, put your code below! --
-- notes.tags (a JSON array) is the truth; note_tags is its index, kept by these triggers so every
-- write is one statement and the index cannot drift.
CREATE TRIGGER `notes_tags_after_insert` AFTER INSERT ON `notes` BEGIN
  INSERT OR IGNORE INTO `note_tags` (`note_id`, `user_id`, `tag`, `updated_at`)
    SELECT NEW.`id`, NEW.`user_id`, `value`, NEW.`updated_at` FROM json_each(NEW.`tags`);
END;
--> statement-breakpoint
CREATE TRIGGER `notes_tags_after_retag` AFTER UPDATE OF `tags` ON `notes` WHEN OLD.`tags` IS NOT NEW.`tags` BEGIN
  DELETE FROM `note_tags` WHERE `note_id` = NEW.`id`;
  INSERT OR IGNORE INTO `note_tags` (`note_id`, `user_id`, `tag`, `updated_at`)
    SELECT NEW.`id`, NEW.`user_id`, `value`, NEW.`updated_at` FROM json_each(NEW.`tags`);
END;
--> statement-breakpoint
CREATE TRIGGER `notes_tags_after_touch` AFTER UPDATE OF `updated_at` ON `notes` WHEN OLD.`tags` IS NEW.`tags` BEGIN
  UPDATE `note_tags` SET `updated_at` = NEW.`updated_at` WHERE `note_id` = NEW.`id`;
END;
--> statement-breakpoint
-- Per-user and per-tag totals in step with the rows, so list pages never COUNT(*).
CREATE TRIGGER `notes_count_after_insert` AFTER INSERT ON `notes` BEGIN
  INSERT INTO `note_counts` (`user_id`, `total`) VALUES (NEW.`user_id`, 1)
    ON CONFLICT (`user_id`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `notes_count_after_delete` AFTER DELETE ON `notes` BEGIN
  UPDATE `note_counts` SET `total` = `total` - 1 WHERE `user_id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `note_tags_count_after_insert` AFTER INSERT ON `note_tags` BEGIN
  INSERT INTO `tag_counts` (`user_id`, `tag`, `total`) VALUES (NEW.`user_id`, NEW.`tag`, 1)
    ON CONFLICT (`user_id`, `tag`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `note_tags_count_after_delete` AFTER DELETE ON `note_tags` BEGIN
  UPDATE `tag_counts` SET `total` = `total` - 1 WHERE `user_id` = OLD.`user_id` AND `tag` = OLD.`tag`;
  DELETE FROM `tag_counts` WHERE `user_id` = OLD.`user_id` AND `tag` = OLD.`tag` AND `total` <= 0;
END;
