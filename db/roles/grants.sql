-- Grants for the role the service connects as (rider_equipment_app in the README). Run as the owner of
-- the schema after `npm run db:migrate`. The data is read-only to the service; it writes only the last
-- use of tokens, its sessions and its rate-limit counts.
GRANT USAGE ON SCHEMA public, access TO rider_equipment_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO rider_equipment_app;
GRANT SELECT, UPDATE (last_used_at) ON access.api_tokens TO rider_equipment_app;
GRANT SELECT ON access.supervisors TO rider_equipment_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON access.sessions TO rider_equipment_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON access.rate_limits TO rider_equipment_app;
-- Supervisors' notes on "Needs attention": recorded and undone, never deleted.
GRANT SELECT, INSERT, UPDATE (undone_by, undone_at) ON access.attention_handled TO rider_equipment_app;
