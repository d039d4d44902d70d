-- Issue 42, storage: an edited page's document may be stored as a delta against a whole document of the same page
-- (services/content/document-deltas). `base` names that whole document; null for every document stored before, and
-- for every whole one, so nothing is rewritten and every existing body reads as it did.
ALTER TABLE `documents` ADD `base` text;
