import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { timeKey } from '../queries/keyset';
import { dayText } from '../wire/sql-fragments';
import { defineRule, type AttentionQuery } from './define';
import { earlierNote, gapRiders, gapsAtEnd, UNTIL, unhandled, riderCells } from './sql';
import { lastCheckHref, riderColumns } from './columns';

const NAME = 'failing-checks';

// The gap that holds the end of the day opens at the rider's last check before it, a failed one ending
// at least the threshold of failures in a row. (streak > 0 lets the partial index serve.)
const failing = (q: AttentionQuery) => (o: Knex.QueryBuilder) =>
  o.whereRaw(`o.streak > 0 AND o.streak >= ? AND o.from_at < ${UNTIL}`, [q.settings.failedChecks, q.asOf]);

/** The riders (g: the gap between checks that holds the end of the day; r; c); no columns. */
const core = (q: AttentionQuery) => unhandled(gapRiders(q, failing(q)), q, NAME, 'g.rider_id', 'g.from_at');

/** The same gaps (g) without their riders and 3PLs: a page's keys (RuleList.bare). */
const bare = (q: AttentionQuery) => unhandled(sql.from(gapsAtEnd(q, failing(q))), q, NAME, 'g.rider_id', 'g.from_at');

function columns(builder: Knex.QueryBuilder) {
  return builder
    .join('patrol_checks as pc', 'pc.id', 'g.check_id')
    .select(
      ...riderCells('g.rider_id'),
      sql.raw(`${dayText('g.from_at')} AS last_check`),
      sql.raw(`${dayText('g.streak_start')} AS failing_since`),
      sql.raw(
        `concat_ws(', ', CASE WHEN NOT pc.id_valid THEN 'ID' END, CASE WHEN NOT pc.plate_valid THEN 'plate' END, CASE WHEN NOT pc.sticker_valid THEN 'sticker' END) AS last_failed`,
      ),
      'pc.id as last_check_id',
    );
}

/**
 * Riders whose last `failedChecks` patrol checks (up to the as-of day) each failed a validation, ID,
 * plate or sticker: newest failure first, with when the failures in a row began and what the newest
 * check failed.
 */
export default defineRule({
  name: NAME,
  subject: 'rider',
  title: 'Failing patrol checks',
  means: (s) => `Riders whose last ${s.failedChecks} patrol checks each failed a validation (ID, plate or sticker), newest failure first.`,
  counted: 'riders failing their last checks',
  noun: ['rider', 'riders'],
  columns: [
    ...riderColumns(true),
    { key: 'last_check', label: 'Last check', nowrap: true, href: lastCheckHref, sort: 'last_check', firstDir: 'desc' },
    { key: 'failing_since', label: 'Failing since', nowrap: true, sort: 'failing_since' },
    { key: 'last_failed', label: 'Last check failed' },
  ],
  list: {
    core,
    bare,
    columns: (builder) => earlierNote(columns(builder), NAME, 'g.rider_id'),
    sorts: {
      last_check: { keys: [timeKey('g.from_at')] },
      failing_since: { keys: [timeKey('g.streak_start')] },
      rider_id: { keys: [] },
    },
    defaultSort: { sort: 'last_check', dir: 'desc' },
    tieBreak: 'g.rider_id',
    subject: 'g.rider_id',
    countOrder: 'g.from_at DESC, g.rider_id DESC',
  },
  evidence: () => sql.raw('g.from_at'),
  openPoint: {
    rows: (q) => columns(core(q)).orderByRaw('g.from_at DESC, g.rider_id'),
    sentence: (row) => [
      `The last checks failed a validation, since ${row.failing_since}; the newest, on ${row.last_check}, failed: ${row.last_failed}.`,
    ],
  },
});
