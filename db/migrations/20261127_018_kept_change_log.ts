import type { Knex } from 'knex';
import { APPLY } from './20261127_018_kept_change_log/apply';
import { DIFFERENCES } from './20261127_018_kept_change_log/differences';
import { LOG_FUNCTIONS } from './20261127_018_kept_change_log/log';
import { REBUILD } from './20261127_018_kept_change_log/rebuild';
import { KEPT_TABLES } from './20261127_018_kept_change_log/tables';
import { LOG_TRIGGERS, SYNCHRONOUS_TRIGGERS } from './20261127_018_kept_change_log/triggers';

// The systems that write the data no longer keep the service's data in their own statements. Until
// now the triggers of migrations 002, 004, 006, 008 and 011 rewrote the kept rows inside each writer's
// statement: an assignment for a rider at the end of the fleet cost seconds (the rider list's entry
// view was read for every rider up to it), a check rewrote its quarter of an hour over the whole
// fleet, a rider moved to another 3PL rewrote each of its rows and their quarters, and every write
// of a 3PL updated that 3PL's one row of counts, so writers waited on each other and deadlocked.
//
// Now a writer's statement only appends what it changed to kept_changes (one small row per rider,
// check, quarter of an hour or catalog row it touched; no index, no lock shared with another writer),
// and kept_apply() folds those rows into the kept data in the background: the service calls it a few
// times a second (src/db/kept-applier.ts), one caller at a time (an advisory lock), in transactions of
// a bounded batch. It reads what is committed now, so the order in which changes arrive does not
// matter: each row names what to write afresh, never a difference to add. The counts per 3PL that
// cannot be recounted cheaply (held items, riders, list blocks) are kept as the difference between
// each rider's part as last applied (kept_riders, kept_rider_held) and its part now.
//
// The applier never waits long for a writer: its lock_timeout is shorter than deadlock_timeout, so a
// batch that meets a writer's row lock gives up, rolls back (its changes stay in the log) and is tried
// again, and no writer is ever ended to break a deadlock with it. Writers wait for the applier only
// on a row both write (a rider whose item counts a batch updates; the rows of a moved rider whose 3PL
// a batch corrects), for one batch.
//
// What stays in the writer's statement: the BEFORE triggers of migration 011 that copy a new row's
// rider, 3PL and items onto the row itself (one primary-key lookup each). Migration 017's key locks
// (kept_lock and the refresh functions that take them) are no longer called: one session applies.
//
// Its parts are in ./20261127_018_kept_change_log/: the triggers, the tables, the log triggers' functions,
// the refreshes written as differences, the rebuild and the applier.

export { KEPT_LOG_TRIGGERS } from './20261127_018_kept_change_log/triggers';

// (Each part begins with a new line and ends with its last statement.)
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${SYNCHRONOUS_TRIGGERS.map(([table, name]) => `DROP TRIGGER ${name} ON ${table};`).join('\n    ')}
${KEPT_TABLES}
${LOG_FUNCTIONS}

    ${LOG_TRIGGERS.map(([, name, definition]) => `CREATE TRIGGER ${name} ${definition};`).join('\n    ')}
${DIFFERENCES}
${REBUILD}
${APPLY}

    SELECT kept_riders_rebuild();
    ANALYZE kept_riders, kept_rider_held;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${LOG_TRIGGERS.map(([table, name]) => `DROP TRIGGER ${name} ON ${table};`).join('\n    ')}
    DROP FUNCTION kept_apply_all(), kept_apply(integer), kept_assignment_days_refresh_riders(bigint[]), kept_apply_list_keys(bigint[], bigint[], bigint[]), kept_apply_quarters(timestamptz[], timestamptz[]), kept_apply_riders(bigint[]),
      kept_rebuild(), kept_riders_rebuild(), truncate_log_kept_changes(), catalog_log_kept_changes(),
      product_exchanges_log_kept_changes(), patrol_check_answers_log_kept_changes(), patrol_checks_log_kept_changes(),
      assignments_log_kept_changes(), riders_log_kept_changes();
    DROP VIEW kept_rider_held_docs, kept_rider_docs;
    DROP FUNCTION kept_freshness();
    DROP TABLE kept_moved_riders, kept_rider_held, kept_riders, kept_changes;
    ${SYNCHRONOUS_TRIGGERS.map(([, name, definition]) => `CREATE TRIGGER ${name} ${definition};`).join('\n    ')}
    CREATE OR REPLACE FUNCTION rider_company_list_key() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      NEW.company_id := (SELECT r.company_id FROM riders r WHERE r.id = NEW.rider_id);
      RETURN NEW;
    END $$;
    CREATE OR REPLACE FUNCTION kept_check_gaps_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM kept_check_gaps WHERE rider_id = ANY (ids);
      INSERT INTO kept_check_gaps SELECT * FROM kept_check_gap_docs WHERE rider_id = ANY (ids);
    $$;
  `);
  // The entries' view of migration 006 is the same definition read another way; it stays.
}
