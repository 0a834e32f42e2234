import type { Knex } from 'knex';

// The kept tables' refreshes write a key's rows afresh (DELETE, then INSERT from the view). Two
// transactions refreshing one key at once collided: the second's DELETE waited on the first's, found
// the old row gone when the first committed and did not see the first's new one, and its INSERT then
// failed on the primary key. So two patrol checks of two riders of one 3PL in one quarter of an hour,
// written by two transactions at once, made the second writer's INSERT fail ("duplicate key value
// violates unique constraint kept_check_quarters_pkey"), as did a rebuild beside any refresh.
//
// Each refresh now first takes a transaction-level advisory lock per key (in one order, so that two
// refreshes never wait on each other crosswise), and only then reads and writes: a second writer of
// the same key waits until the first commits or rolls back, and then sees its rows. Each rebuild first
// locks its tables in EXCLUSIVE mode (reads go on; refreshes under way finish first, new ones wait).
// The functions keep their names; the bodies of migrations 004, 006 and 008 run under the new ones.

/**
 * Refreshes by a list of ids: [function, its argument's type, the table it writes]. A key's text must not
 * depend on the session's settings (TimeZone, DateStyle): the quarters' and days' below are numbers.
 */
const REFRESHES: Array<[string, string, string]> = [
  ['patrol_check_questioners_refresh', 'bigint[]', 'patrol_check_questioners'],
  ['rider_list_entries_refresh', 'bigint[]', 'rider_list_entries'],
  ['kept_check_gaps_refresh', 'bigint[]', 'kept_check_gaps'],
  ['kept_assignment_days_refresh', 'bigint[]', 'kept_assignment_days'],
];

/** Advisory locks one transaction takes before it locks whole tables instead (see kept_lock). */
const LOCK_BUDGET = 256;

/** Rebuilds: [function, the tables it rewrites, whether it runs as its owner]. */
const REBUILDS: Array<[string, string, boolean]> = [
  ['patrol_check_questioners_rebuild', 'patrol_check_questioners', false],
  ['rider_list_entries_rebuild', 'rider_list_entries', true],
  ['rider_list_blocks_rebuild', 'rider_list_blocks', true],
  [
    'kept_attention_rebuild',
    'kept_check_gaps, kept_assignment_days, kept_check_quarters, kept_exchange_quarters, kept_exchange_days, kept_held_items, kept_company_riders',
    true,
  ],
];

const OWNER = 'SECURITY DEFINER SET search_path FROM CURRENT';

/** The TRUNCATE triggers' functions that empty a kept table: [function, table]. */
const EMPTIED: Array<[string, string]> = [
  ['assignments_truncate_rider_list_entries', 'rider_list_entries'],
  ['patrol_check_answers_truncate_questioners', 'patrol_check_questioners'],
];

/** Such a function: emptying its table with DELETE (this migration), or with TRUNCATE as before it. */
const emptying = ([name, table]: [string, string], how: 'DELETE' | 'TRUNCATE') => `
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql ${OWNER} AS $$
    BEGIN
      ${how === 'DELETE' ? `DELETE FROM ${table};` : `IF EXISTS (SELECT 1 FROM ${table}) THEN TRUNCATE ${table}; END IF;`}
      RETURN NULL;
    END $$;`;

export async function up(knex: Knex): Promise<void> {
  const refreshes = REFRESHES.map(
    ([name, type, table]) => `
    ALTER FUNCTION ${name}(${type}) RENAME TO ${name}_unlocked;
    CREATE FUNCTION ${name}(ids ${type}) RETURNS void LANGUAGE plpgsql ${OWNER} AS $$
    BEGIN
      PERFORM kept_lock('${table}', ids::text[]);
      PERFORM ${name}_unlocked(ids);
    END $$;`,
  );
  const rebuilds = REBUILDS.map(
    ([name, tables, owner]) => `
    ALTER FUNCTION ${name}() RENAME TO ${name}_unlocked;
    CREATE FUNCTION ${name}() RETURNS void LANGUAGE plpgsql ${owner ? OWNER : ''} AS $$
    BEGIN
      LOCK TABLE ${tables} IN EXCLUSIVE MODE;
      PERFORM ${name}_unlocked();
    END $$;`,
  );
  await knex.raw(`
    -- Waits, until the transaction ends, for the advisory lock of each of tbl's keys, in the order of
    -- the locks' numbers (a number shared by two keys only makes one wait for the other). Advisory locks
    -- take room in PostgreSQL's shared lock table (max_locks_per_transaction), and these stay until the
    -- transaction ends: past ${LOCK_BUDGET} in one transaction, it locks the table instead, which makes every
    -- other writer of it wait for this transaction (reads go on).
    CREATE FUNCTION kept_lock(tbl regclass, keys text[]) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      held integer := coalesce(nullif(current_setting('kept.advisory_locks', true), ''), '0')::integer;
      wanted integer := (SELECT count(DISTINCT key) FROM unnest(keys) key);
    BEGIN
      IF wanted = 0 THEN RETURN; END IF;
      IF held + wanted > ${LOCK_BUDGET} THEN
        EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', tbl);
        RETURN;
      END IF;
      PERFORM pg_advisory_xact_lock(n)
         FROM (SELECT DISTINCT hashtextextended(tbl::oid || ':' || key, 0) AS n FROM unnest(keys) key) l ORDER BY n;
      PERFORM set_config('kept.advisory_locks', (held + wanted)::text, true);
    END $$;
    ${refreshes.join('\n')}
    ${rebuilds.join('\n')}

    ALTER FUNCTION kept_check_quarters_refresh(timestamptz[]) RENAME TO kept_check_quarters_refresh_unlocked;
    CREATE FUNCTION kept_check_quarters_refresh(moments timestamptz[]) RETURNS void LANGUAGE plpgsql ${OWNER} AS $$
    BEGIN
      PERFORM kept_lock('kept_check_quarters', ARRAY(SELECT extract(epoch FROM kept_quarter(m))::text FROM unnest(moments) m WHERE m IS NOT NULL));
      PERFORM kept_check_quarters_refresh_unlocked(moments);
    END $$;

    ALTER FUNCTION kept_exchange_counts_refresh(timestamptz[]) RENAME TO kept_exchange_counts_refresh_unlocked;
    CREATE FUNCTION kept_exchange_counts_refresh(moments timestamptz[]) RETURNS void LANGUAGE plpgsql ${OWNER} AS $$
    BEGIN
      PERFORM kept_lock('kept_exchange_quarters', ARRAY(SELECT extract(epoch FROM kept_quarter(m))::text FROM unnest(moments) m WHERE m IS NOT NULL));
      PERFORM kept_lock('kept_exchange_days', ARRAY(SELECT (kept_utc_day(m) - DATE '1970-01-01')::text FROM unnest(moments) m WHERE m IS NOT NULL));
      PERFORM kept_exchange_counts_refresh_unlocked(moments);
    END $$;

    -- A TRUNCATE of assignments or of the answers empties their kept rows with DELETE, not TRUNCATE:
    -- a TRUNCATE here waited for every reader of the kept table, and a reader that held it while it
    -- waited for the truncated table closed a deadlock (the database then ended one of the two).
    ${EMPTIED.map((emptied) => emptying(emptied, 'DELETE')).join('')}

    -- A new zone rewrites every exchange day (migration 008), as a rebuild does.
    CREATE OR REPLACE FUNCTION rider_list_zone_keep_attention() RETURNS trigger LANGUAGE plpgsql ${OWNER} AS $$
    BEGIN
      LOCK TABLE kept_assignment_days IN EXCLUSIVE MODE;
      DELETE FROM kept_assignment_days;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      RETURN NULL;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  const names = [
    ...REFRESHES.map(([name, type]) => [name, type]),
    ...REBUILDS.map(([name]) => [name, '']),
    ['kept_check_quarters_refresh', 'timestamptz[]'],
    ['kept_exchange_counts_refresh', 'timestamptz[]'],
  ];
  await knex.raw(`
    ${names.map(([name, type]) => `DROP FUNCTION ${name}(${type}); ALTER FUNCTION ${name}_unlocked(${type}) RENAME TO ${name};`).join('\n')}
    DROP FUNCTION kept_lock(regclass, text[]);
    ${EMPTIED.map((emptied) => emptying(emptied, 'TRUNCATE')).join('')}
    CREATE OR REPLACE FUNCTION rider_list_zone_keep_attention() RETURNS trigger LANGUAGE plpgsql ${OWNER} AS $$
    BEGIN
      DELETE FROM kept_assignment_days;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      RETURN NULL;
    END $$;
  `);
}
