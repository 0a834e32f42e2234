-- The function public.riders_recount_items, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.riders_recount_items() ──
CREATE OR REPLACE FUNCTION public.riders_recount_items() RETURNS void LANGUAGE sql
AS $$
      UPDATE riders r
         SET active_items = coalesce(c.active, 0), returned_items = coalesce(c.returned, 0)
        FROM (SELECT r2.id,
                     count(a.id) FILTER (WHERE a.deleted_at IS NULL) AS active,
                     count(a.id) FILTER (WHERE a.deleted_at IS NOT NULL) AS returned
                FROM riders r2 LEFT JOIN assignments a ON a.rider_id = r2.id
               GROUP BY r2.id) c
       WHERE c.id = r.id
         AND (r.active_items, r.returned_items) IS DISTINCT FROM (coalesce(c.active, 0), coalesce(c.returned, 0));
    $$;
