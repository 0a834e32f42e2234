-- The function public.product_returns_list_keys, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.product_returns_list_keys() ──
CREATE OR REPLACE FUNCTION public.product_returns_list_keys() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      SELECT a.rider_id, r.company_id, a.product_id, a.variation_id
        INTO NEW.rider_id, NEW.company_id, NEW.product_id, NEW.variation_id
        FROM assignments a JOIN riders r ON r.id = a.rider_id WHERE a.id = NEW.assignment_id;
      RETURN NEW;
    END $$;
