-- The function public.kept_apply_riders, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_apply_riders(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_apply_riders(ids bigint[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      -- One statement, so one snapshot: the 3PL a rider's items are added under is the one kept_riders
      -- then says (two statements could read a move committed between them, and count it twice).
      WITH now_riders AS MATERIALIZED (
        SELECT r.id AS rider_id, r.company_id, r.active_items AS was_active, r.returned_items AS was_returned,
               c.active_items, c.returned_items
          FROM riders r
          CROSS JOIN LATERAL (
            SELECT count(*) FILTER (WHERE a.deleted_at IS NULL)::int AS active_items,
                   count(*) FILTER (WHERE a.deleted_at IS NOT NULL)::int AS returned_items
              FROM assignments a WHERE a.rider_id = r.id) c
         WHERE r.id = ANY (ids)
      ), was_riders AS MATERIALIZED (
        SELECT rider_id, company_id, active_items, returned_items FROM kept_riders WHERE rider_id = ANY (ids)
      ), now_held AS MATERIALIZED (
        SELECT a.rider_id, n.company_id, a.product_id, count(*)::int AS items
          FROM assignments a JOIN now_riders n ON n.rider_id = a.rider_id
         WHERE a.rider_id = ANY (ids) AND a.deleted_at IS NULL
         GROUP BY 1, 2, 3
      ), was_held AS MATERIALIZED (
        SELECT h.rider_id, w.company_id, h.product_id, h.items
          FROM kept_rider_held h JOIN was_riders w ON w.rider_id = h.rider_id
         WHERE h.rider_id = ANY (ids)
      ), per_product AS MATERIALIZED (
        SELECT company_id, product_id, sum(items)::int AS n
          FROM (SELECT company_id, product_id, items FROM now_held UNION ALL SELECT company_id, product_id, -items FROM was_held) x
         GROUP BY 1, 2 HAVING sum(items) <> 0
      ), parts AS MATERIALIZED (
        SELECT company_id, rider_id, 1 AS sign, active_items, returned_items FROM now_riders
        UNION ALL
        SELECT company_id, rider_id, -1, active_items, returned_items FROM was_riders
      ), per_block AS MATERIALIZED (
        SELECT company_id, rider_id >> 10 AS block,
               sum(sign * (active_items > 0 OR returned_items > 0)::int)::int AS with_items,
               sum(sign * (active_items > 0)::int)::int AS with_active,
               sum(sign * (returned_items > 0)::int)::int AS with_returned
          FROM parts GROUP BY 1, 2
      ), per_company AS MATERIALIZED (
        SELECT company_id, sum(sign)::int AS riders, sum(sign * (active_items > 0)::int)::int AS riders_holding,
               sum(sign * active_items)::int AS items_held
          FROM parts GROUP BY 1
      ), held_changed AS (
        UPDATE kept_held_items k SET items = k.items + d.n FROM per_product d WHERE k.company_id = d.company_id AND k.product_id = d.product_id
      ), held_added AS (
        INSERT INTO kept_held_items (company_id, product_id, items)
          SELECT company_id, product_id, n FROM per_product d
           WHERE NOT EXISTS (SELECT 1 FROM kept_held_items k WHERE k.company_id = d.company_id AND k.product_id = d.product_id)
      ), rider_held_gone AS (
        DELETE FROM kept_rider_held h
         WHERE h.rider_id = ANY (ids)
           AND NOT EXISTS (SELECT 1 FROM now_held n WHERE n.rider_id = h.rider_id AND n.product_id = h.product_id)
      ), rider_held_put AS (
        INSERT INTO kept_rider_held AS h (rider_id, product_id, items)
          SELECT rider_id, product_id, items FROM now_held
          ON CONFLICT (rider_id, product_id) DO UPDATE SET items = EXCLUDED.items WHERE h.items <> EXCLUDED.items
      ), blocks_changed AS (
        UPDATE rider_list_blocks b
           SET with_items = b.with_items + d.with_items, with_active = b.with_active + d.with_active,
               with_returned = b.with_returned + d.with_returned
          FROM per_block d
         WHERE b.company_id = d.company_id AND b.block = d.block AND (d.with_items, d.with_active, d.with_returned) <> (0, 0, 0)
      ), blocks_added AS (
        INSERT INTO rider_list_blocks (company_id, block, with_items, with_active, with_returned)
          SELECT * FROM per_block d
           WHERE d.with_items > 0 AND NOT EXISTS (SELECT 1 FROM rider_list_blocks b WHERE b.company_id = d.company_id AND b.block = d.block)
      ), companies_changed AS (
        UPDATE kept_company_riders k
           SET riders = k.riders + d.riders, riders_holding = k.riders_holding + d.riders_holding, items_held = k.items_held + d.items_held
          FROM per_company d
         WHERE k.company_id = d.company_id AND (d.riders, d.riders_holding, d.items_held) <> (0, 0, 0)
      ), companies_added AS (
        INSERT INTO kept_company_riders (company_id, riders, riders_holding, items_held)
          SELECT * FROM per_company d
           WHERE d.riders > 0 AND NOT EXISTS (SELECT 1 FROM kept_company_riders k WHERE k.company_id = d.company_id)
      ), counted AS (
        UPDATE riders r SET active_items = n.active_items, returned_items = n.returned_items
          FROM now_riders n
         WHERE r.id = n.rider_id AND (n.was_active, n.was_returned) <> (n.active_items, n.returned_items)
      ), riders_gone AS (
        DELETE FROM kept_riders k WHERE k.rider_id = ANY (ids) AND NOT EXISTS (SELECT 1 FROM now_riders n WHERE n.rider_id = k.rider_id)
      )
      INSERT INTO kept_riders AS k (rider_id, company_id, active_items, returned_items)
        SELECT rider_id, company_id, active_items, returned_items FROM now_riders
        ON CONFLICT (rider_id) DO UPDATE SET company_id = EXCLUDED.company_id, active_items = EXCLUDED.active_items,
          returned_items = EXCLUDED.returned_items
         WHERE (k.company_id, k.active_items, k.returned_items) <> (EXCLUDED.company_id, EXCLUDED.active_items, EXCLUDED.returned_items);
      DELETE FROM kept_held_items WHERE items = 0;
      DELETE FROM rider_list_blocks WHERE with_items = 0;
      DELETE FROM kept_company_riders WHERE riders = 0;
    END $$;
