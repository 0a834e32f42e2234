-- The function public.kept_view_reads, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_view_reads(view regclass) ──
CREATE OR REPLACE FUNCTION public.kept_view_reads(view regclass) RETURNS text[] LANGUAGE sql
  SET search_path = "$user", public
AS $$
      WITH RECURSIVE read(rel) AS (
        SELECT view::oid
        UNION
        SELECT d.refobjid FROM read JOIN pg_rewrite w ON w.ev_class = read.rel
          JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
                          AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> read.rel
      )
      SELECT coalesce(array_agg(c.relname::text ORDER BY c.relname), '{}')
        FROM read JOIN pg_class c ON c.oid = read.rel WHERE c.relkind IN ('r', 'p');
    $$;
