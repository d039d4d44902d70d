-- Hand-written (issue 42, storage): a search section row whose text is unchanged is kept when its page is
-- reindexed (services/indexing/catch-up), and only its position may change when a section is inserted or removed
-- above it. The full-text index holds no position, so its update trigger fires only when an indexed column changes:
-- before, moving a row rewrote its every word into the index (a tombstone and a new entry).
DROP TRIGGER IF EXISTS `search_section_rows_au`;--> statement-breakpoint
CREATE TRIGGER `search_section_rows_au` AFTER UPDATE OF `page_title`, `section_title`, `body`, `space_key` ON `search_section_rows` BEGIN
  INSERT INTO search_sections(search_sections, rowid, page_title, section_title, body, space_key) VALUES ('delete', old.id, old.page_title, old.section_title, old.body, old.space_key);
  INSERT INTO search_sections(rowid, page_title, section_title, body, space_key) VALUES (new.id, new.page_title, new.section_title, new.body, new.space_key);
END;
