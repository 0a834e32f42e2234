-- What the role the service connects as (rider_equipment_app, docs/OPERATIONS.md "Database roles") may do.
-- `npm run db:migrate` runs this file after the migrations whenever a role of that name exists; it can be
-- run again at any time (every GRANT here is idempotent). Every table and sequence of the schema access
-- is named below, granted or not, and test/grants.test.ts fails for one that is not: a new one is decided
-- here. The test suite's service runs as such a role, so a table it touches without a grant fails a test.

GRANT USAGE ON SCHEMA public, access TO rider_equipment_app;

-- The company's data and the kept data: read only. The kept data is written by kept_apply(), which runs as
-- the tables' owner (SECURITY DEFINER); the change log too is written only by the writers' triggers.
GRANT SELECT ON ALL TABLES IN SCHEMA public TO rider_equipment_app;

-- The service's own data, in the schema access.
-- API tokens: made and revoked by the owner's `npm run token`; the service records their last use.
GRANT SELECT, UPDATE (last_used_at) ON access.api_tokens TO rider_equipment_app;
-- Supervisors: made and disabled by the owner's `npm run supervisor`.
GRANT SELECT ON access.supervisors TO rider_equipment_app;
-- Admin sessions and rate-limit counts: the service's to keep and expire.
GRANT SELECT, INSERT, UPDATE, DELETE ON access.sessions TO rider_equipment_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON access.rate_limits TO rider_equipment_app;
-- Supervisors' notes on "Needs attention": recorded, superseded by newer evidence and undone; never rewritten or deleted.
GRANT SELECT, INSERT, UPDATE (undone_by, undone_at, superseded_at) ON access.attention_handled TO rider_equipment_app;
-- Batches of notes: a batch takes its id first (nextval), so that its rows can name it in the same statement.
GRANT SELECT, INSERT, UPDATE (undone_by, undone_at) ON access.attention_batches TO rider_equipment_app;
GRANT USAGE ON SEQUENCE access.attention_batches_id_seq TO rider_equipment_app;
-- Who a row is given to: given, given to another, or taken back.
GRANT SELECT, INSERT, UPDATE, DELETE ON access.attention_owners TO rider_equipment_app;
-- Notes on a rider or beside a handling: written, never rewritten or deleted.
GRANT SELECT, INSERT ON access.supervisor_notes TO rider_equipment_app;
-- Who gave which row to whom: recorded, never rewritten or deleted.
GRANT SELECT, INSERT ON access.attention_gives TO rider_equipment_app;
-- Each supervisor's own choices (the pages' theme): set and changed by them.
GRANT SELECT, INSERT, UPDATE ON access.supervisor_preferences TO rider_equipment_app;

-- Not granted: access.api_tokens_id_seq and access.supervisors_id_seq (only the owner's commands make
-- tokens and supervisors), access.attention_handled_id_seq, access.supervisor_notes_id_seq and access.attention_gives_id_seq (identity columns' sequences, which an
-- INSERT uses without a grant).
