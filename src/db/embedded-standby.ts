// A hot standby of the embedded primary, on disk: its base backup (a copy of the running primary's files
// between pg_backup_start and pg_backup_stop), the settings that point it at the primary through its
// replication slot, rewritten at each start for the port the primary has then, and what the primary
// still keeps of the slot's WAL. src/db/embedded.ts starts and stops the servers.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

/** What of a running server this needs (src/db/embedded.ts's Server has it). */
interface Server {
  port: number;
  password: string;
  dataDir: string;
  url(database: string): string;
}

/** The user PostgreSQL runs as, when root started it. */
interface RunAs {
  uid: number;
  gid: number;
}

/** Whether the primary keeps a slot's WAL: 'lost' once max_slot_wal_keep_size removed what it held. */
export async function slotStatus(primary: Server, slot: string): Promise<'kept' | 'lost' | 'gone'> {
  const client = new pg.Client(primary.url('postgres'));
  await client.connect();
  try {
    const { rows } = await client.query<{ wal_status: string | null }>('SELECT wal_status FROM pg_replication_slots WHERE slot_name = $1', [
      slot,
    ]);
    if (!rows.length) return 'gone';
    return rows[0].wal_status === 'lost' ? 'lost' : 'kept';
  } finally {
    await client.end();
  }
}

const STANDBY_HEAD = '# A hot standby of the embedded primary';

/** The standby's settings (in postgresql.auto.conf) that point it at `primary` through `slot`. */
function standbySettings(primary: Server, slot: string): string {
  const conninfo = `host=127.0.0.1 port=${primary.port} user=postgres password=${primary.password} application_name=${slot}`;
  return `${STANDBY_HEAD}\nprimary_conninfo = '${conninfo.replace(/'/g, "''")}'\nprimary_slot_name = '${slot}'\nhot_standby = on\n`;
}

/** Rewrites the standby's settings for where its primary runs now; true when they changed. */
export function pointAt(primary: Server, dataDir: string, slot: string): boolean {
  const file = path.join(dataDir, 'postgresql.auto.conf');
  const before = fs.readFileSync(file, 'utf8');
  const others = before
    .split('\n')
    .filter((line) => !/^\s*(primary_conninfo|primary_slot_name|hot_standby)\s*=/.test(line) && line !== STANDBY_HEAD)
    .join('\n')
    .trimEnd();
  const after = `${others}\n${standbySettings(primary, slot)}`;
  if (after === before) return false;
  // Written in place: the file keeps its owner (the postgres user, as root).
  fs.writeFileSync(file, after);
  return true;
}

/** Has a running server read its settings again (primary_conninfo takes effect without a restart). */
export async function reload(server: Server): Promise<void> {
  const client = new pg.Client(server.url('postgres'));
  await client.connect();
  try {
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
}

/** Folders whose contents a base backup leaves out (PostgreSQL's documentation: "Making a Base Backup Using the Low Level API"). */
const EMPTY_IN_BACKUP = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]);
const LEFT_OUT = new Set(['postmaster.pid', 'postmaster.opts', 'standby.signal', 'recovery.signal']);

/** Copies a running cluster's files; a file that goes away while being copied is skipped, as a backup allows. */
function copyCluster(from: string, to: string, top = true): void {
  fs.mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (top && LEFT_OUT.has(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    try {
      if (entry.isDirectory()) {
        if (top && EMPTY_IN_BACKUP.has(entry.name)) fs.mkdirSync(target, { mode: 0o700 });
        else if (entry.name !== 'pgsql_tmp') copyCluster(source, target, false);
      } else if (entry.isFile()) {
        fs.copyFileSync(source, target);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

function chownTree(dir: string, user: RunAs): void {
  fs.chownSync(dir, user.uid, user.gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(child, user);
    else fs.chownSync(child, user.uid, user.gid);
  }
}

/**
 * A base backup of the running primary into `dataDir`, set up as a standby of it: pg_backup_start,
 * a copy of the files, pg_backup_stop's backup label, then standby.signal and the connection back to
 * the primary through a physical replication slot (created first, so the WAL the standby needs is kept).
 */
export async function baseBackup(primary: Server, dataDir: string, slot: string, user?: RunAs): Promise<void> {
  const client = new pg.Client(primary.url('postgres'));
  await client.connect();
  try {
    // A slot that lost its WAL (max_slot_wal_keep_size) is no use to the new standby: it starts afresh.
    await client.query(
      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND wal_status = 'lost' AND NOT active",
      [slot],
    );
    await client.query(
      'SELECT pg_create_physical_replication_slot($1, true) WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = $1)',
      [slot],
    );
    await client.query('SELECT pg_backup_start($1, true)', [slot]);
    let label: { labelfile: string; spcmapfile: string | null };
    try {
      fs.mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 });
      copyCluster(primary.dataDir, dataDir);
    } finally {
      label = (await client.query('SELECT labelfile, spcmapfile FROM pg_backup_stop(true)')).rows[0];
    }
    fs.writeFileSync(path.join(dataDir, 'backup_label'), label.labelfile);
    if (label.spcmapfile) fs.writeFileSync(path.join(dataDir, 'tablespace_map'), label.spcmapfile);
    fs.writeFileSync(path.join(dataDir, 'standby.signal'), '');
    fs.appendFileSync(path.join(dataDir, 'postgresql.auto.conf'), `\n${standbySettings(primary, slot)}`);
    if (user) chownTree(dataDir, user);
  } catch (error) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  } finally {
    await client.end();
  }
}
