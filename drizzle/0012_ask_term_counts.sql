-- Custom SQL migration file, put your code below! --
-- How many notes hold each index token (owner-prefixed, so per user), read from the full-text
-- index's own term list: a question's words are weighed by IDF with one lookup each, where a
-- count(*) MATCH would read every posting of a word found in most notes.
CREATE VIRTUAL TABLE `notes_fts_vocab` USING fts5vocab('notes_fts', 'row');
