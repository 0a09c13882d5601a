-- Custom SQL migration file, put your code below! --
-- Full-text index of notes. Its text is tokenised in TypeScript (src/modules/search: CJK characters
-- one token each, stored as bigrams, everything folded), so the app writes it in the note's own transaction; the
-- index stores no copy of the text (contentless) and deletes by rowid alone (contentless_delete).
-- Every word starts with its owner's id in 8 hex digits (so the prefix indexes, 9 and 11, are of
-- 1 and 3 characters); `scope` holds the owner and exact-tag tokens: a search is one MATCH, no join.
CREATE VIRTUAL TABLE `notes_fts` USING fts5(
  `scope`, `title`, `tags`, `body`,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2', prefix = '9 11'
);
--> statement-breakpoint
-- Title and tags outweigh the body within a ranking group; the scope column never counts.
INSERT INTO `notes_fts` (`notes_fts`, `rank`) VALUES ('rank', 'bm25(0.0, 4.0, 2.0, 1.0)');
--> statement-breakpoint
-- The plain text of each indexed note's body, which snippets are cut from without parsing Markdown again.
CREATE TABLE `search_texts` (
  `note_id` integer PRIMARY KEY NOT NULL,
  `body` text NOT NULL
);
--> statement-breakpoint
-- Notes whose index entry is missing or stale: every writer of notes (imports too) leaves one row
-- here in its own transaction; the app indexes them and removes the row only if it was not replaced.
CREATE TABLE `search_backlog` (
  `seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
  `note_id` integer NOT NULL UNIQUE,
  `user_id` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `search_backlog_user_idx` ON `search_backlog` (`user_id`);
--> statement-breakpoint
CREATE TRIGGER `notes_search_after_insert` AFTER INSERT ON `notes` BEGIN
  INSERT OR REPLACE INTO `search_backlog` (`note_id`, `user_id`) VALUES (NEW.`id`, NEW.`user_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `notes_search_after_edit` AFTER UPDATE OF `title`, `content`, `tags` ON `notes` BEGIN
  INSERT OR REPLACE INTO `search_backlog` (`note_id`, `user_id`) VALUES (NEW.`id`, NEW.`user_id`);
END;
--> statement-breakpoint
-- Deleting needs no tokenising, so every delete path (a user's cascade too) drops the entry here.
CREATE TRIGGER `notes_search_after_delete` AFTER DELETE ON `notes` BEGIN
  DELETE FROM `notes_fts` WHERE `rowid` = OLD.`id`;
  DELETE FROM `search_texts` WHERE `note_id` = OLD.`id`;
  DELETE FROM `search_backlog` WHERE `note_id` = OLD.`id`;
END;
--> statement-breakpoint
-- Notes written before this migration are indexed by the app at start-up from this backlog.
INSERT INTO `search_backlog` (`note_id`, `user_id`) SELECT `id`, `user_id` FROM `notes` ORDER BY `id`;
