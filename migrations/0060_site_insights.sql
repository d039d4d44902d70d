-- Site insights (issue 43): the events of published sites' readers (GitBook's SiteInsightsEvent), recorded by the
-- queue consumer in batches (src/jobs/site-insights.ts), never on a visitor's request, and aggregated by
-- aggregateSiteEvents and listSiteVisitorSegments. See src/services/insights.
--
-- `id` is the event's content hash (services/insights/events `eventId`): an event delivered twice (a queue retry,
-- a client that sends a batch again) is one row. `at` is the event's time in epoch milliseconds. `visitor_id` and
-- `session_id` are hashes salted with the site (never what the reader sent); without the site's tracking cookie
-- the visitor is their session. `data` holds the type's own fields and the visitor's coarse traits (browser, OS,
-- device, bot, language, referrer, UTM parameters, claims of visitor-auth sites): never an address or a user agent.
CREATE TABLE `site_insights_events` (
  `id` text PRIMARY KEY NOT NULL,
  `site_id` text NOT NULL REFERENCES `sites`(`id`) ON DELETE cascade,
  `type` text NOT NULL,
  `at` integer NOT NULL,
  `url` text NOT NULL,
  `url_path` text NOT NULL,
  `display_context` text NOT NULL,
  `site_section` text,
  `site_space` text,
  `site_share_key` text,
  `space_id` text,
  `revision_id` text,
  `page_id` text,
  `visitor_id` text NOT NULL,
  `session_id` text NOT NULL,
  `data` text NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `site_insights_events_site_at` ON `site_insights_events` (`site_id`, `at`);
