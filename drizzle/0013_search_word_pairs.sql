-- Custom SQL migration file, put your code below! --
-- Each text column gains a twin holding the pairs of its adjacent tokens, hashed per owner into
-- six-ideograph tokens (src/modules/search/word-pairs.ts): a quoted phrase reads the short posting
-- list of its pairs instead of both words' whole position lists. FTS5 cannot add columns, so the
-- index is made anew and every note goes back into the backlog, which the app indexes at start-up
-- (and a user's search catches up on first).
DROP TABLE `notes_fts_vocab`;
--> statement-breakpoint
DROP TABLE `notes_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `notes_fts` USING fts5(
  `scope`, `title`, `tags`, `body`, `title_pairs`, `tags_pairs`, `body_pairs`,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2', prefix = '9 11'
);
--> statement-breakpoint
-- A pair counts as much as the column it came from; the scope column never counts.
INSERT INTO `notes_fts` (`notes_fts`, `rank`) VALUES ('rank', 'bm25(0.0, 4.0, 2.0, 1.0, 4.0, 2.0, 1.0)');
--> statement-breakpoint
CREATE VIRTUAL TABLE `notes_fts_vocab` USING fts5vocab('notes_fts', 'row');
--> statement-breakpoint
INSERT OR REPLACE INTO `search_backlog` (`note_id`, `user_id`) SELECT `id`, `user_id` FROM `notes` ORDER BY `id`;
