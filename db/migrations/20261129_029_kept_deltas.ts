import type { Knex } from 'knex';
import { APPLY_FUNCTIONS } from './20261129_029_kept_deltas/apply';
import { DELTA_FUNCTIONS } from './20261129_029_kept_deltas/deltas';
import { LOG_FUNCTIONS } from './20261129_029_kept_deltas/log';

// The kept data keeps up with its writers (issue 61). Until now a check or an exchange logged only its
// quarter of an hour, and the applier counted that quarter afresh over the whole fleet (and the UTC
// day of an exchange's quarter): 78 % of a batch of the writers' mix, and more as the fleet grows. A
// rider moved to another 3PL, or renamed, brought every quarter of its checks and exchanges, and every
// day of its exchanges, to be counted again.
//
// Now the writer's statement logs what it adds to the counts: per quarter and 3PL, the checks (and
// those passed) it inserted, less those it deleted; per quarter, 3PL and replacement type, the
// exchanges. The applier adds them up, so a batch's work grows with the changes it takes, not with the
// fleet. The 3PL of a count is the row's own 3PL (its list key, migration 011), which the applier
// corrects for rows written while their rider moved: that correction moves the rows' counts from one
// 3PL to the other. A rider renamed is logged as such ('N'): only its name's bigrams change.
//
// A count may be below zero for a moment: a batch may take a deletion before the insertion it undoes
// (the log is taken in its physical order), and the next batch brings it back. The counts' checks
// against zero go.
//
// The log is bounded when no service applies it: once it holds more than kept_log_state.max_rows rows
// (10,000,000 by default, about 700 MB; as the statistics count them), writers stop logging (per
// statement, one read of that row and of the statistics) and the next applier empties the log and
// rebuilds the kept data, after every transaction that may have skipped the log has ended.
//
// Its functions are in ./20261129_029_kept_deltas/: the log's side, the differences, the rebuilds and
// the applier.

/** The functions this migration writes (run again as they are by a developer trying a change on a copy). */
export const FUNCTIONS = `${LOG_FUNCTIONS}
${DELTA_FUNCTIONS}
${APPLY_FUNCTIONS}

`;

export async function up(knex: Knex): Promise<void> {
  // What the log holds in the old form (quarters to count afresh) is applied by the old function first.
  await knex.raw(`SELECT kept_apply_all()`);
  await knex.raw(`
    ALTER TABLE kept_changes ADD COLUMN n integer, ADD COLUMN m integer, ADD COLUMN tag text;
    COMMENT ON COLUMN kept_changes.n IS 'q, x: checks or exchanges added (less those removed) in the quarter "at" for the 3PL "id"';
    COMMENT ON COLUMN kept_changes.m IS 'q: checks passed, added less removed';
    COMMENT ON COLUMN kept_changes.tag IS 'x: the exchanges'' replacement type';
    ALTER TABLE kept_check_quarters DROP CONSTRAINT kept_check_quarters_checks_check, DROP CONSTRAINT kept_check_quarters_passed_check;
    ALTER TABLE kept_exchange_quarters DROP CONSTRAINT kept_exchange_quarters_exchanges_check;
    ALTER TABLE kept_exchange_days DROP CONSTRAINT kept_exchange_days_exchanges_check;

    -- Until when a moved rider's rows are checked again (kept_apply()): riders moved before this have
    -- nothing left to wait for.
    ALTER TABLE kept_moved_riders ADD COLUMN until xid8 NOT NULL DEFAULT '0';
    ALTER TABLE kept_moved_riders ALTER COLUMN until DROP DEFAULT;
    COMMENT ON TABLE kept_moved_riders IS 'Riders moved to another 3PL lately: kept_apply() checks their rows'' list keys until no writer that read the old 3PL can still be running (until); kept by kept_apply().';

    -- The log's bound, and the state of a rebuild it asks for.
    CREATE TABLE kept_log_state (
      one          boolean PRIMARY KEY DEFAULT true CHECK (one),
      max_rows     bigint  NOT NULL DEFAULT 10000000 CHECK (max_rows > 0),
      overflowed   boolean NOT NULL DEFAULT false,
      -- After an overflow: a rebuild to come, once the transactions it waits for (those of this database
      -- running just after the log reopened; NULL: not noted yet) have ended.
      rebuild      boolean NOT NULL DEFAULT false,
      rebuild_waits_for xid[]
    );
    COMMENT ON TABLE kept_log_state IS 'The change log''s bound (max_rows: writers stop logging beyond it, and the kept data is rebuilt) (migration 029).';
    INSERT INTO kept_log_state DEFAULT VALUES;

    DROP FUNCTION kept_apply_quarters(timestamptz[], timestamptz[]);
    ${FUNCTIONS}
  `);
}

// The quarters' recounts this replaces are gone with their functions: going back is restoring a backup
// taken before it (docs/OPERATIONS.md, "Migrations").
export async function down(): Promise<void> {
  throw new Error('Migration 029 (kept counts as deltas) cannot be undone: restore the backup taken before it.');
}
