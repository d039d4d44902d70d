-- Hand-written (issue 42, storage): history collection (services/content/history.ts, the cron's step). One row per
-- space the collection has looked at: when it last did, and whether documents are still to be swept (a collection
-- deletes revisions in one bounded step, then sweeps the documents they alone referred to over as many runs as it
-- needs). The cron visits the spaces it has not looked at for longest first; a purged space's row goes with it.
CREATE TABLE `history_collections` (
  `space_id` text PRIMARY KEY NOT NULL REFERENCES `spaces`(`id`) ON DELETE CASCADE,
  `collected_at` text NOT NULL,
  `documents_pending` integer DEFAULT 0 NOT NULL
);
