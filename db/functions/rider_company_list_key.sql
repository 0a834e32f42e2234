-- The function public.rider_company_list_key, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_company_list_key() ──
CREATE OR REPLACE FUNCTION public.rider_company_list_key() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      SELECT r.company_id INTO NEW.company_id FROM riders r WHERE r.id = NEW.rider_id;
      RETURN NEW;
    END $$;
