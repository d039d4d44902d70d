-- Hand-written (issue 42, storage): one stored form of a page. Page documents and reusable contents are stored as
-- their GitBook JSON only; the Markdown copy migration 0015 added beside each (as many bytes again as the page's
-- Markdown) is no longer written, and reads derive Markdown from the document where they need it, as they did for
-- documents stored before 0015. The copies an existing database holds are dropped here (the column stays, null).
UPDATE `documents` SET `markdown` = NULL WHERE `markdown` IS NOT NULL;
