-- Organization-wide lists at a cost independent of the organization's size (issue 42, item 5): collections and
-- installations.
-- Counters of an organization's collections, all of them and those at its root (the list's `nested=false`), kept
-- by triggers as the space, site and team counters are (0011, 0116): an admin's `count` is a counter, a member's
-- is the counter less the capped collections hidden from them, rather than a role evaluated on every collection.
ALTER TABLE `organizations` ADD `collection_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `root_collection_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `organizations` SET
  `collection_count` = (SELECT count(*) FROM `collections` c WHERE c.org_id = organizations.id),
  `root_collection_count` = (SELECT count(*) FROM `collections` c WHERE c.org_id = organizations.id AND c.parent_id IS NULL);--> statement-breakpoint
CREATE TRIGGER `collections_count_ai` AFTER INSERT ON `collections` BEGIN
  UPDATE organizations SET collection_count = collection_count + 1, root_collection_count = root_collection_count + (new.parent_id IS NULL)
  WHERE id = new.org_id;
END;--> statement-breakpoint
-- A collection follows its organization across transfers, and enters or leaves the root when it is moved.
CREATE TRIGGER `collections_count_au` AFTER UPDATE OF `org_id`, `parent_id` ON `collections`
  WHEN old.org_id IS NOT new.org_id OR (old.parent_id IS NULL) <> (new.parent_id IS NULL) BEGIN
  UPDATE organizations SET collection_count = collection_count - 1, root_collection_count = root_collection_count - (old.parent_id IS NULL)
  WHERE id = old.org_id;
  UPDATE organizations SET collection_count = collection_count + 1, root_collection_count = root_collection_count + (new.parent_id IS NULL)
  WHERE id = new.org_id;
END;--> statement-breakpoint
CREATE TRIGGER `collections_count_ad` AFTER DELETE ON `collections` BEGIN
  UPDATE organizations SET collection_count = collection_count - 1, root_collection_count = root_collection_count - (old.parent_id IS NULL)
  WHERE id = old.org_id;
END;--> statement-breakpoint
-- The collections capped to guest (defaultLevel guest on them or on a collection above), by organization and
-- parent: the collections a member who is neither admin nor guest does not see are those of them no grant opens.
CREATE INDEX `collections_org_capped` ON `collections` (`org_id`, `parent_id`) WHERE `access_cap` = 0;--> statement-breakpoint
-- The root collections of an organization in list order: a page of `nested=false` reads its rows, not every
-- nested collection before them.
CREATE INDEX `collections_org_root` ON `collections` (`org_id`, `created_at`, `id`) WHERE `parent_id` IS NULL;--> statement-breakpoint
-- Unpublished integrations (tombstones until re-published): an organization's installations are its installation
-- counter less those of an unpublished integration (none once unpublishing has deleted them), read from here.
CREATE INDEX `integrations_unpublished` ON `integrations` (`id`) WHERE `deleted_at` IS NOT NULL;
