-- The function public.kept_oldest_writer, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_oldest_writer() ──
CREATE OR REPLACE FUNCTION public.kept_oldest_writer() RETURNS xid8 LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      mine bigint := pg_current_xact_id()::text::bigint;
      oldest bigint;
    BEGIN
      SELECT min(l.transactionid::text::bigint) INTO oldest
        FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.pid IS DISTINCT FROM pg_backend_pid()
         AND (l.pid IS NULL OR a.datid = (SELECT oid FROM pg_database WHERE datname = current_database()));
      IF oldest IS NULL THEN RETURN mine::text::xid8; END IF;
      RETURN ((mine >> 32 << 32) + oldest - CASE WHEN oldest > (mine & 4294967295) THEN 4294967296 ELSE 0 END)::text::xid8;
    END $$;
