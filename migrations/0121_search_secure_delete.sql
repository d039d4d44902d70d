-- Hand-written (issue 42, storage): FTS5's secure-delete. A row deleted from the full-text index (a section edited
-- or removed) is taken out of the segments that hold it, instead of being written again as a tombstone into a new
-- segment that lives until automerge reaches the oldest level: an edit's index then grows by its new text alone.
-- What it trades: a delete reads and rewrites the index pages of its words (a section's: a few pages), once, where a
-- tombstone was an append. The setting is stored in the index (search_sections_config), for every connection.
INSERT INTO search_sections(search_sections, rank) VALUES ('secure-delete', 1);
