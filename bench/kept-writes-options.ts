// The settings of bench/kept-writes.ts: its phases, targets, timeouts and the writers' mix, its options
// (--url, --repeat, …) and the check that the database is on this machine; the stdout and stderr helpers.
import { parseArgs } from 'node:util';

const PHASES = ['single', 'bulk', 'concurrent', 'freshness', 'applier'] as const;
export type Phase = (typeof PHASES)[number];

export interface Options {
  url: string;
  repeat: number;
  /** Bulk imports per kind, each with and without the triggers: a 10,000-row INSERT varies by a third from run to run here. */
  bulkRepeat: number;
  bulk: number;
  concurrentSeconds: number;
  writers: number;
  only: Set<Phase>;
  json?: string;
  /** Run kept_apply() beside the writers with the triggers on, as the service does (--no-apply: not). */
  apply: boolean;
  /** Write the phases' tables into their regions of docs/runs/WRITERS-BENCHMARKS.md (bench/record.ts). */
  record: boolean;
}

export const TARGET_ADDED_MS = 5;
export const TARGET_BULK_RATIO = 1.5;
/** Every timed statement's bound: a write slower than this is reported as a timeout. */
export const STATEMENT_TIMEOUT = '120s';
/** The cleanup of a concurrent run (deletes, riders moved back with the triggers on) may take longer. */
export const CLEANUP_TIMEOUT = '600s';
/** The service's batch (src/db/kept-applier.ts). */
export const APPLY_BATCH = 1000;
export const APPLY_PAUSE_MS = 200;
export const DRAIN_WAIT_MS = 60_000;
/** Riders each concurrent writer may move, and may rename. */
export const MOVE_POOL = 2000;
export const RENAME_POOL = 100;
/** The concurrent writers' mix, in relative weights. */
export const MIX: Array<[Op, number]> = [
  ['assign', 30],
  ['return', 20],
  ['check', 25],
  ['move', 10],
  ['rename', 15],
];
export type Op = 'assign' | 'return' | 'check' | 'move' | 'rename';

export const log = (message: string) => console.error(message);
export const out = (message = '') => console.log(message);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Options ---------------------------------------------------------------------------------------------

const USAGE =
  'usage: node dist/bench/kept-writes.js --url <database URL> [--repeat N] [--bulk N] [--bulk-repeat N] [--concurrent-seconds S] [--writers W] [--only single,bulk,concurrent,freshness,applier] [--json FILE] [--no-apply] [--record]';

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: a positive whole number, not ${value}\n${USAGE}`);
  return n;
}

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      url: { type: 'string' },
      repeat: { type: 'string' },
      bulk: { type: 'string' },
      'bulk-repeat': { type: 'string' },
      'concurrent-seconds': { type: 'string' },
      writers: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      'no-apply': { type: 'boolean' },
      record: { type: 'boolean' },
    },
  });
  if (!values.url) throw new Error(USAGE);
  const only = (values.only ?? PHASES.join(',')).split(',').map((s) => s.trim());
  const unknown = only.filter((p) => !(PHASES as readonly string[]).includes(p));
  if (unknown.length) throw new Error(`--only: ${unknown.join(', ')} unknown; one or more of ${PHASES.join(', ')}`);
  return {
    url: values.url,
    repeat: positive('repeat', values.repeat, 5),
    bulk: positive('bulk', values.bulk, 10_000),
    bulkRepeat: positive('bulk-repeat', values['bulk-repeat'], 9),
    concurrentSeconds: positive('concurrent-seconds', values['concurrent-seconds'], 30),
    writers: positive('writers', values.writers, 6),
    only: new Set(only as Phase[]),
    json: values.json,
    apply: !values['no-apply'],
    record: values.record ?? false,
  };
}

/** This tool disables triggers and writes rows: it refuses anything but this machine. */
export function requireLoopback(url: string): void {
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname);
  const local = ['', 'localhost', '127.0.0.1', '::1', '[::1]'].includes(host) || host.startsWith('/');
  if (!local) throw new Error(`refusing ${host}: this tool writes and switches triggers off, loopback databases only`);
}

export const redacted = (url: string) => {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
};
