-- Issue 42, storage: a one-page edit records three audit events, and each paid its row in four indexes. The index of
-- every event by time alone served the batch's statement that drops an event whose change changed nothing (now found
-- by its key: services/audit/recorder) and the hourly retention purge (now per organization along
-- `audit_events_org_time`: services/audit/retention).
DROP INDEX IF EXISTS `audit_events_time`;
