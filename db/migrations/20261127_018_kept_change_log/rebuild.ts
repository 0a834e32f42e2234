// Migration 018's rebuild of everything: each rider's part as last applied, and kept_rebuild() over every kept table.

/** The rebuild of every kept table (its \`CREATE\` statement), with \`after\`: the rebuilds later migrations add. */
const keptRebuild = (create: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION', after = '') => `
    ${create} kept_rebuild() RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET kept.applying = 'on' AS $$
    BEGIN
      DELETE FROM kept_changes;
      PERFORM riders_recount_items();
      PERFORM list_keys_rebuild();
      PERFORM patrol_check_questioners_rebuild();
      PERFORM rider_list_blocks_rebuild();
      PERFORM rider_list_entries_rebuild();
      PERFORM kept_attention_rebuild();
      PERFORM kept_riders_rebuild();${after}
    END $$;`;

/** kept_riders_rebuild() and kept_rebuild(). */
export const REBUILD = `
    -- Rebuilding everything --------------------------------------------------------------------------
    CREATE FUNCTION kept_riders_rebuild() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      LOCK TABLE kept_riders, kept_rider_held IN EXCLUSIVE MODE;
      DELETE FROM kept_riders;
      INSERT INTO kept_riders SELECT rider_id, company_id, active_items, returned_items FROM kept_rider_docs;
      DELETE FROM kept_rider_held;
      INSERT INTO kept_rider_held SELECT * FROM kept_rider_held_docs;
    END $$;

    -- Every kept table from its definition, and the log emptied: first, so that a change committed
    -- while the rebuild reads stays in it for kept_apply(). Writers go on; bulk loaders call this.
    ${keptRebuild('CREATE FUNCTION')}`;
