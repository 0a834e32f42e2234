-- The function public.list_keys_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.list_keys_rebuild() ──
CREATE OR REPLACE FUNCTION public.list_keys_rebuild() RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      UPDATE patrol_checks t SET company_id = d.company_id FROM patrol_check_list_key_docs d
       WHERE d.id = t.id AND t.company_id IS DISTINCT FROM d.company_id;
      UPDATE assignments t SET company_id = d.company_id FROM assignment_list_key_docs d
       WHERE d.id = t.id AND t.company_id IS DISTINCT FROM d.company_id;
      UPDATE product_returns t SET rider_id = d.rider_id, company_id = d.company_id, product_id = d.product_id, variation_id = d.variation_id
        FROM product_return_list_key_docs d
       WHERE d.id = t.id AND (t.rider_id, t.company_id, t.product_id, t.variation_id)
                             IS DISTINCT FROM (d.rider_id, d.company_id, d.product_id, d.variation_id);
      UPDATE product_exchanges t SET rider_id = d.rider_id, company_id = d.company_id,
             old_product_id = d.old_product_id, old_variation_id = d.old_variation_id,
             new_product_id = d.new_product_id, new_variation_id = d.new_variation_id
        FROM product_exchange_list_key_docs d
       WHERE d.id = t.id AND (t.rider_id, t.company_id, t.old_product_id, t.old_variation_id, t.new_product_id, t.new_variation_id)
                             IS DISTINCT FROM (d.rider_id, d.company_id, d.old_product_id, d.old_variation_id, d.new_product_id, d.new_variation_id);
    $$;
