// Bulk loading with COPY ... FROM STDIN: the COPY text format, a loader that streams generated rows
// into one table, and the dropping and restoring of the foreign keys and plain indexes of the tables
// being loaded. Nothing here knows what the rows are; the demo seed (demo.ts) uses it.

import type { ClientBase } from 'pg';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import { from as copyFrom } from 'pg-copy-streams';

// ---------------------------------------------------------------------------------------------
// COPY text format: tab-separated, one row per line, \N for NULL, backslash escapes.

export const NULL = '\\N';
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** A text value for COPY. */
export function text(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : s;
}

export const nullableText = (s: string | null): string => (s === null ? NULL : text(s));

/** A text[] value: an array literal with every element double-quoted, then COPY-escaped. */
export function textArray(xs: readonly string[]): string {
  return text(`{${xs.map((x) => `"${x.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
}

/** A jsonb value: its JSON text, COPY-escaped (JSON's own backslashes get doubled). */
export const json = (value: unknown): string => text(JSON.stringify(value));

export const bool = (b: boolean): string => (b ? 't' : 'f');

export const row = (fields: ReadonlyArray<string | number>): string => fields.join('\t') + '\n';

// ---------------------------------------------------------------------------------------------
// Loading.

const CHUNK_CHARS = 256 * 1024; // rows are pushed to the COPY stream in chunks of about this size

export interface LoadContext {
  client: ClientBase;
  log: (msg: string) => void;
  verbose: boolean;
}

/** How far a pass over the source of a table's rows has got, for progress output. */
export interface Progress {
  done: number;
  total: number;
}

export const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(2)}s`;

export interface CopyOptions {
  /**
   * COPY ... WITH (FREEZE): only for a table truncated (or created) in the current transaction. Its
   * rows are then written frozen and all-visible (no hint-bit rewrite on first read, index-only
   * scans work at once).
   */
  freeze?: boolean;
  /** Reported in the log every tenth of the way when the context is verbose. */
  progress?: Progress;
}

/**
 * Streams rows into a table with one COPY FROM STDIN. Rows are joined into chunks and pulled on
 * demand (Readable.from honours backpressure), so only a few chunks are in memory at a time.
 * Returns the number of rows written.
 */
export async function copyRows(
  ctx: LoadContext,
  table: string,
  columns: readonly string[],
  rows: Iterable<string>,
  options: CopyOptions = {},
): Promise<number> {
  const { freeze = false, progress } = options;
  const started = performance.now();
  let nextReport = 0.1;
  const report = (rowsSoFar: number) => {
    if (!ctx.verbose || !progress) return;
    const share = progress.done / progress.total;
    if (share < nextReport) return;
    while (nextReport <= share) nextReport += 0.1;
    ctx.log(`  ${table}: ${Math.round(share * 100)}% (${rowsSoFar} rows, ${seconds(started)})`);
  };
  function* chunks(): Generator<string> {
    let buf = '';
    let n = 0;
    for (const line of rows) {
      buf += line;
      n++;
      if (buf.length >= CHUNK_CHARS) {
        yield buf;
        buf = '';
        report(n);
      }
    }
    if (buf) yield buf;
  }
  const stream = ctx.client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN${freeze ? ' WITH (FREEZE)' : ''}`));
  await pipeline(Readable.from(chunks()), stream);
  ctx.log(`${table}: ${stream.rowCount} rows in ${seconds(started)}`);
  return stream.rowCount;
}

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export interface Deferred {
  foreignKeys: Array<{ table: string; name: string; definition: string }>;
  indexes: Array<{ name: string; definition: string }>;
}

/**
 * Checking foreign keys row by row (RI triggers) and growing secondary indexes row by row cost
 * several times the COPY itself at 100k riders. Inside the transaction, drop the foreign keys and
 * the plain (non-unique) indexes of the tables to be loaded, and restore them from their catalogue
 * definitions after loading: PostgreSQL then builds each index in one sort and validates each
 * foreign key with one join. Primary keys and unique constraints stay. A rollback undoes it all.
 */
export async function deferConstraints(client: ClientBase, tables: readonly string[]): Promise<Deferred> {
  const { rows: foreignKeys } = await client.query<{ table: string; name: string; definition: string }>(
    `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint
      WHERE contype = 'f' AND conrelid = ANY ($1::regclass[])
      ORDER BY conrelid, conname`,
    [[...tables]],
  );
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition
       FROM pg_index
      WHERE indrelid = ANY ($1::regclass[]) AND NOT indisunique AND NOT indisprimary
        AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = indexrelid)
      ORDER BY indrelid, indexrelid`,
    [[...tables]],
  );
  for (const fk of foreignKeys) await client.query(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${quoteIdent(fk.name)}`);
  for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
  return { foreignKeys, indexes };
}

/** Rebuilds what deferConstraints dropped, ANALYZEing the loaded tables before the foreign keys are validated. */
export async function restoreConstraints(ctx: LoadContext, deferred: Deferred, tables: readonly string[]): Promise<void> {
  let started = performance.now();
  for (const index of deferred.indexes) await ctx.client.query(index.definition);
  ctx.log(`indexes: ${deferred.indexes.length} rebuilt in ${seconds(started)}`);
  // Statistics first, so that the validation joins below get sensible plans.
  started = performance.now();
  await ctx.client.query(`ANALYZE ${tables.join(', ')}`);
  ctx.log(`analyze: ${seconds(started)}`);
  started = performance.now();
  for (const fk of deferred.foreignKeys) {
    await ctx.client.query(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${quoteIdent(fk.name)} ${fk.definition}`);
  }
  ctx.log(`foreign keys: ${deferred.foreignKeys.length} validated in ${seconds(started)}`);
}
