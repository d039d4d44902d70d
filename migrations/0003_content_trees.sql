ALTER TABLE `revisions` ADD `pages_root` text;--> statement-breakpoint
ALTER TABLE `revisions` ADD `files_root` text;--> statement-breakpoint
ALTER TABLE `revisions` ADD `meta` text;--> statement-breakpoint
ALTER TABLE `revisions` ADD `page_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `revisions` ADD `file_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Converts every revision written before this migration (its `meta` is null) from its whole-tree
-- `manifest` to the page and file maps of services/content/tree: a three-level trie per map, keyed by
-- the first and second character of page and file ids, whose nodes go to `documents` under the names
-- `legacy:<revision>:<p|f>[:<c0>[:<c1>]]` (not hashes: SQL has no SHA-256; nodes are found by their
-- names wherever a hash is expected). The `manifest` column is left as it was.
CREATE TABLE `_legacy_entries` (`rev` text NOT NULL, `space` text NOT NULL, `map` text NOT NULL, `key` text NOT NULL, `value` text NOT NULL);
--> statement-breakpoint
INSERT INTO `_legacy_entries`
SELECT r.id, r.space_id, 'p', json_extract(j.value, '$.id'),
  CASE WHEN json_array_length(j.value, '$.pages') > 0
    THEN json_set(json_remove(j.value, '$.pages'),
      '$.parent', CASE WHEN j.path = '$.pages' THEN NULL ELSE json_extract(r.manifest, substr(j.path, 1, length(j.path) - 6) || '.id') END,
      '$.children', json((SELECT json_group_array(json_array(json_extract(c.value, '$.id'), json_extract(c.value, '$.slug'))) FROM json_each(j.value, '$.pages') c)))
    ELSE json_set(json_remove(j.value, '$.pages'),
      '$.parent', CASE WHEN j.path = '$.pages' THEN NULL ELSE json_extract(r.manifest, substr(j.path, 1, length(j.path) - 6) || '.id') END)
  END
FROM `revisions` r, json_tree(r.manifest, '$.pages') j
WHERE r.meta IS NULL AND j.type = 'object' AND (j.path = '$.pages' OR j.path LIKE '%.pages') AND json_extract(j.value, '$.id') IS NOT NULL;
--> statement-breakpoint
INSERT INTO `_legacy_entries`
SELECT r.id, r.space_id, 'p', '~',
  json_object('id', '~', 'children', json((SELECT json_group_array(json_array(json_extract(c.value, '$.id'), json_extract(c.value, '$.slug'))) FROM json_each(r.manifest, '$.pages') c)))
FROM `revisions` r
WHERE r.meta IS NULL AND json_array_length(r.manifest, '$.pages') > 0;
--> statement-breakpoint
INSERT INTO `_legacy_entries`
SELECT r.id, r.space_id, 'f', json_extract(f.value, '$.id'), f.value
FROM `revisions` r, json_each(r.manifest, '$.files') f
WHERE r.meta IS NULL;
--> statement-breakpoint
CREATE TABLE `_legacy_nodes` (`space` text NOT NULL, `hash` text NOT NULL, `body` text NOT NULL);
--> statement-breakpoint
INSERT INTO `_legacy_nodes`
SELECT space, 'legacy:' || rev || ':' || map || ':' || substr(key, 1, 1) || ':' || substr(key, 2, 1), json_group_object(key, json(value))
FROM `_legacy_entries` GROUP BY rev, space, map, substr(key, 1, 1), substr(key, 2, 1);
--> statement-breakpoint
INSERT INTO `_legacy_nodes`
SELECT space, 'legacy:' || rev || ':' || map || ':' || c0, json_group_object(c1, 'legacy:' || rev || ':' || map || ':' || c0 || ':' || c1)
FROM (SELECT DISTINCT rev, space, map, substr(key, 1, 1) AS c0, substr(key, 2, 1) AS c1 FROM `_legacy_entries`)
GROUP BY rev, space, map, c0;
--> statement-breakpoint
INSERT INTO `_legacy_nodes`
SELECT space, 'legacy:' || rev || ':' || map, json_group_object(c0, 'legacy:' || rev || ':' || map || ':' || c0)
FROM (SELECT DISTINCT rev, space, map, substr(key, 1, 1) AS c0 FROM `_legacy_entries`)
GROUP BY rev, space, map;
--> statement-breakpoint
INSERT OR IGNORE INTO `documents` (`hash`, `body`, `created_at`)
SELECT hash, body, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `_legacy_nodes`;
--> statement-breakpoint
INSERT OR IGNORE INTO `space_documents` (`space_id`, `hash`)
SELECT n.space, n.hash FROM `_legacy_nodes` n JOIN `spaces` s ON s.id = n.space;
--> statement-breakpoint
UPDATE `revisions` SET
  `pages_root` = CASE WHEN EXISTS (SELECT 1 FROM `_legacy_entries` e WHERE e.rev = revisions.id AND e.map = 'p') THEN 'legacy:' || id || ':p' END,
  `files_root` = CASE WHEN EXISTS (SELECT 1 FROM `_legacy_entries` e WHERE e.rev = revisions.id AND e.map = 'f') THEN 'legacy:' || id || ':f' END,
  `page_count` = (SELECT count(*) FROM `_legacy_entries` e WHERE e.rev = revisions.id AND e.map = 'p' AND e.key <> '~'),
  `file_count` = (SELECT count(*) FROM `_legacy_entries` e WHERE e.rev = revisions.id AND e.map = 'f'),
  `meta` = json_object(
    'variables', json(coalesce(json_extract(manifest, '$.variables'), '{}')),
    'reusableContents', json(coalesce(json_extract(manifest, '$.reusableContents'), '[]')))
WHERE `meta` IS NULL;
--> statement-breakpoint
DROP TABLE `_legacy_nodes`;
--> statement-breakpoint
DROP TABLE `_legacy_entries`;
