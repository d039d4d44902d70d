-- Hand-written (issue 42, storage): the full-text index of search_section_rows without its prefix indexes. The
-- prefix indexes ('2 3') stored every word again as its first two and first three characters, about two thirds of
-- the index's bytes; FTS5 answers the last word's prefix query (`"word"*`) from the main index alone, by a range
-- scan of its terms. The table is made again with the same columns, tokenizer and external content, the triggers
-- that keep it in step with search_section_rows likewise, and `rebuild` indexes the rows an existing database has.
DROP TRIGGER IF EXISTS `search_section_rows_ai`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_section_rows_ad`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_section_rows_au`;--> statement-breakpoint
DROP TABLE IF EXISTS `search_sections`;--> statement-breakpoint
CREATE VIRTUAL TABLE `search_sections` USING fts5(page_title, section_title, body, space_key, content='search_section_rows', content_rowid='id', tokenize='unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `search_section_rows_ai` AFTER INSERT ON `search_section_rows` BEGIN
  INSERT INTO search_sections(rowid, page_title, section_title, body, space_key) VALUES (new.id, new.page_title, new.section_title, new.body, new.space_key);
END;--> statement-breakpoint
CREATE TRIGGER `search_section_rows_ad` AFTER DELETE ON `search_section_rows` BEGIN
  INSERT INTO search_sections(search_sections, rowid, page_title, section_title, body, space_key) VALUES ('delete', old.id, old.page_title, old.section_title, old.body, old.space_key);
END;--> statement-breakpoint
CREATE TRIGGER `search_section_rows_au` AFTER UPDATE ON `search_section_rows` BEGIN
  INSERT INTO search_sections(search_sections, rowid, page_title, section_title, body, space_key) VALUES ('delete', old.id, old.page_title, old.section_title, old.body, old.space_key);
  INSERT INTO search_sections(rowid, page_title, section_title, body, space_key) VALUES (new.id, new.page_title, new.section_title, new.body, new.space_key);
END;--> statement-breakpoint
INSERT INTO search_sections(search_sections) VALUES ('rebuild');
