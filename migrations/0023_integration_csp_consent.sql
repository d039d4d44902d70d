-- Consent to what an integration's scripts may load on a site's pages (issue 38): the Content-Security-Policy sources
-- an installation's organization approved, as a JSON array of "directive source" pairs (services/integrations/
-- site-scripts.ts `cspGrants`). Pages merge the approved policy only; a publish that declares more leaves the
-- installation `pending` on what it approved, as a publish asking for more scopes does. NULL, for installations made
-- before this migration, stands for the integration's policy as it is now: the next publish records that policy
-- as approved before it compares (services/integrations/registry.ts).
ALTER TABLE `integration_installations` ADD `approved_csp` text;
