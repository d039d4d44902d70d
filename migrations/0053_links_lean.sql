-- Hand-written (issue 42, storage): the link index without `space_links_status` (space_id, status, target_key). No
-- statement seeks links by their stored status (a list filters on the status it computes per request, in-app links
-- included, and status updates find their rows by target id), so the index only repeated every link's key: 0.11 times
-- a page's Markdown on the AxonIQ guide. A space's links are read through the primary key's (space_id, ...) prefix.
DROP INDEX IF EXISTS `space_links_status`;
