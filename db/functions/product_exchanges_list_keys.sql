-- The function public.product_exchanges_list_keys, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.product_exchanges_list_keys() ──
CREATE OR REPLACE FUNCTION public.product_exchanges_list_keys() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      SELECT oa.rider_id, r.company_id, oa.product_id, oa.variation_id
        INTO NEW.rider_id, NEW.company_id, NEW.old_product_id, NEW.old_variation_id
        FROM assignments oa JOIN riders r ON r.id = oa.rider_id WHERE oa.id = NEW.old_assignment_id;
      SELECT na.product_id, na.variation_id INTO NEW.new_product_id, NEW.new_variation_id
        FROM assignments na WHERE na.id = NEW.new_assignment_id;
      RETURN NEW;
    END $$;
