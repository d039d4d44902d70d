-- The event types an integration's script answered "not handled" (406, @gitbook/runtime's answer to an event it has
-- no handler for), as {"<type>": <version>}: site views are not recorded for a version that does not handle them
-- (services/integrations/site-views.ts). A new version is asked again.
ALTER TABLE `integrations` ADD `unhandled_events` text;
