import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { projectRoot } from '../paths';
import { connectKnex } from './knex';
import * as schema from '../../db/migrations/20261122_001_schema';
import * as riderItemCounts from '../../db/migrations/20261122_002_rider_item_counts';
import * as access from '../../db/migrations/20261122_003_access';
import * as checkQuestioners from '../../db/migrations/20261123_004_check_questioners';
import * as rateLimits from '../../db/migrations/20261123_005_rate_limits';
import * as riderListKept from '../../db/migrations/20261123_006_rider_list_kept';
import * as attention from '../../db/migrations/20261123_007_attention';
import * as attentionKept from '../../db/migrations/20261125_008_attention_kept';
import * as listSortIndexes from '../../db/migrations/20261125_010_list_sort_indexes';
import * as listKeysKept from '../../db/migrations/20261125_011_list_keys_kept';
import * as riderNameSearch from '../../db/migrations/20261125_012_rider_name_search';
import * as failedChecksIndex from '../../db/migrations/20261125_013_failed_checks_index';
import * as attentionHandling from '../../db/migrations/20261125_014_attention_handling';
import * as valueChoicesIndex from '../../db/migrations/20261125_015_value_choices_index';
import * as riderNameKey from '../../db/migrations/20261125_016_rider_name_key';
import * as keptRefreshSerialized from '../../db/migrations/20261126_017_kept_refresh_serialized';
import * as keptChangeLog from '../../db/migrations/20261127_018_kept_change_log';
import * as dropCompanyRiderIndexes from '../../db/migrations/20261127_019_drop_company_rider_indexes';
import * as attentionHandledOneLive from '../../db/migrations/20261127_020_attention_handled_one_live';
import * as attentionBatches from '../../db/migrations/20261127_021_attention_batches';
import * as attentionOwners from '../../db/migrations/20261127_022_attention_owners';
import * as attentionRuleDays from '../../db/migrations/20261127_023_attention_rule_days';
import * as returnsDateCovering from '../../db/migrations/20261128_024_returns_date_covering';
import * as riderNameGrams from '../../db/migrations/20261128_025_rider_name_grams';
import * as streamDateCovering from '../../db/migrations/20261128_026_stream_date_covering';
import * as riderNameGramsByRider from '../../db/migrations/20261128_027_rider_name_grams_by_rider';
import * as assignmentDaysRiderKey from '../../db/migrations/20261128_028_assignment_days_rider_key';
import * as keptDeltas from '../../db/migrations/20261129_029_kept_deltas';
import * as movedRiderReturns from '../../db/migrations/20261129_030_moved_rider_returns';
import * as unreachedFunctions from '../../db/migrations/20261129_031_unreached_functions';
import * as supervisorNotes from '../../db/migrations/20261130_032_supervisor_notes';
import * as attentionGives from '../../db/migrations/20261130_033_attention_gives';
import * as supervisorPreferences from '../../db/migrations/20261130_034_supervisor_preferences';
import * as listKeysNotForTheApplier from '../../db/migrations/20261201_035_list_keys_not_for_the_applier';
import * as truncateRebuildsItsReaders from '../../db/migrations/20261201_036_truncate_rebuilds_its_readers';
import * as applierReadsByIndex from '../../db/migrations/20261202_037_applier_reads_by_index';
import * as movedRidersSettlePaced from '../../db/migrations/20261203_038_moved_riders_settle_paced';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Migrations are imported, not found on disk, so they run the same from src/ and from dist/.
const migrations: Array<[string, Migration]> = [
  ['20261122_001_schema', schema],
  ['20261122_002_rider_item_counts', riderItemCounts],
  ['20261122_003_access', access],
  ['20261123_004_check_questioners', checkQuestioners],
  ['20261123_005_rate_limits', rateLimits],
  ['20261123_006_rider_list_kept', riderListKept],
  ['20261123_007_attention', attention],
  ['20261125_008_attention_kept', attentionKept],
  ['20261125_010_list_sort_indexes', listSortIndexes],
  ['20261125_011_list_keys_kept', listKeysKept],
  ['20261125_012_rider_name_search', riderNameSearch],
  ['20261125_013_failed_checks_index', failedChecksIndex],
  ['20261125_014_attention_handling', attentionHandling],
  ['20261125_015_value_choices_index', valueChoicesIndex],
  ['20261125_016_rider_name_key', riderNameKey],
  ['20261126_017_kept_refresh_serialized', keptRefreshSerialized],
  ['20261127_018_kept_change_log', keptChangeLog],
  ['20261127_019_drop_company_rider_indexes', dropCompanyRiderIndexes],
  ['20261127_020_attention_handled_one_live', attentionHandledOneLive],
  ['20261127_021_attention_batches', attentionBatches],
  ['20261127_022_attention_owners', attentionOwners],
  ['20261127_023_attention_rule_days', attentionRuleDays],
  ['20261128_024_returns_date_covering', returnsDateCovering],
  ['20261128_025_rider_name_grams', riderNameGrams],
  ['20261128_026_stream_date_covering', streamDateCovering],
  ['20261128_027_rider_name_grams_by_rider', riderNameGramsByRider],
  ['20261128_028_assignment_days_rider_key', assignmentDaysRiderKey],
  ['20261129_029_kept_deltas', keptDeltas],
  ['20261129_030_moved_rider_returns', movedRiderReturns],
  ['20261129_031_unreached_functions', unreachedFunctions],
  ['20261130_032_supervisor_notes', supervisorNotes],
  ['20261130_033_attention_gives', attentionGives],
  ['20261130_034_supervisor_preferences', supervisorPreferences],
  ['20261201_035_list_keys_not_for_the_applier', listKeysNotForTheApplier],
  ['20261201_036_truncate_rebuilds_its_readers', truncateRebuildsItsReaders],
  ['20261202_037_applier_reads_by_index', applierReadsByIndex],
  ['20261203_038_moved_riders_settle_paced', movedRidersSettlePaced],
];

/** The migrations' names, in the order they run (test/migrations-listed.test.ts holds them to db/migrations/). */
export const migrationNames: readonly string[] = migrations.map(([name]) => name);

const source: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => migrations,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}

/** The role the service connects as in production (docs/OPERATIONS.md, "Database roles"). */
export const APP_ROLE = 'rider_equipment_app';

/** db/roles/grants.sql, for `role` (the file names APP_ROLE). */
export function grantsFor(role: string = APP_ROLE): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(role)) throw new Error(`not a plain role name: ${role}`);
  const sql = fs.readFileSync(path.join(projectRoot, 'db/roles/grants.sql'), 'utf8');
  return sql.replace(new RegExp(`\\b${APP_ROLE}\\b`, 'g'), role);
}

export interface MigrateOptions {
  /** The service's role, granted what db/roles/grants.sql says after the migrations if it exists. */
  appRole?: string;
  log?: (message: string) => void;
}

/**
 * Migrates the database at `url` to the latest schema on a connection of its own, then grants the
 * service's role (when the server has it) what it needs of the tables as they now are; returns the
 * migrations it applied.
 */
export async function migrateDatabase(url: string, { appRole = APP_ROLE, log }: MigrateOptions = {}): Promise<string[]> {
  // knex says which migration failed, then the error with the whole of its SQL before PostgreSQL's words:
  // kept here, and thrown as one short message that names both.
  const said: string[] = [];
  const knex = connectKnex(url, { warn: (message: string) => said.push(message) });
  try {
    const applied = await migrateLatest(knex).catch((error: Error & { code?: string }) => {
      const file = said.map((line) => /^migration file "(.+)" failed$/.exec(line)?.[1]).find(Boolean);
      if (!file) throw error;
      const reason = error.message.slice(error.message.lastIndexOf(' - ') + 3);
      throw Object.assign(
        new Error(`Migration ${file} failed: ${reason}${error.code ? ` (SQLSTATE ${error.code})` : ''}`, { cause: error }),
        {
          code: error.code,
        },
      );
    });
    const { rows } = await knex.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_roles WHERE rolname = ?', [appRole]);
    if (rows.length) {
      await knex.transaction((trx) => trx.raw(grantsFor(appRole)));
      log?.(`Granted ${appRole} what db/roles/grants.sql says`);
    }
    return applied;
  } finally {
    await knex.destroy();
  }
}

export async function pendingMigrations(db: Knex): Promise<string[]> {
  const [, pending] = (await db.migrate.list({ migrationSource: source })) as [unknown[], Array<{ file: string } | [string, Migration]>];
  return pending.map((m) => (Array.isArray(m) ? m[0] : m.file));
}
