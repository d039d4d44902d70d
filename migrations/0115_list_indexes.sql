-- Organization-wide lists at a cost independent of the organization's size (issue 42, item 5).
-- The live spaces capped to guest (defaultLevel guest on them or on a collection above): the count of an
-- organization's spaces for a member who is neither admin nor guest is the space counter less those of them no
-- grant opens, read here rather than by evaluating the member's role on every space of the organization.
CREATE INDEX `spaces_org_capped_live` ON `spaces` (`org_id`) WHERE `access_cap` = 0 AND `deleted_at` IS NULL;
