// Which process owns an embedded server's data folder, and stopping a server by its pid. The process
// that starts (or takes over) the server on a folder writes its pid beside it and removes it once it
// has stopped the server; its stop ends whatever postmaster runs there then, even one restarted by hand.
import fs from 'node:fs';
import path from 'node:path';

/** Whether a process of this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A postmaster.pid left by a crash may name a pid since given to another program: on Linux, only a `postgres` counts. */
function isPostgres(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return !fs.existsSync('/proc/self/comm');
  }
}

/** The server running on this data folder now (the service's, while a command runs), if any. */
export function runningServer(dir: string): { pid: number; port: number } | undefined {
  try {
    const [pid, , , port] = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
    if (!Number(pid) || !alive(Number(pid)) || !isPostgres(Number(pid))) return undefined; // a stale lock file
    return Number(port) ? { pid: Number(pid), port: Number(port) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The owner file beside the folder. A server whose owner is gone (killed, or stopped on a timeout
 * without it) is nobody's: the next start takes it over.
 */
const ownerFile = (dir: string) => `${dir}.owner`;
export function claim(dir: string): void {
  fs.writeFileSync(ownerFile(dir), `${process.pid}\n`);
}
/** The pid the owner file names, if any. */
export function owner(dir: string): number | undefined {
  try {
    return Number(fs.readFileSync(ownerFile(dir), 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}
export function ownerless(dir: string): boolean {
  const pid = owner(dir);
  return !pid || !alive(pid);
}
export function release(dir: string): void {
  fs.rmSync(ownerFile(dir), { force: true });
}

/** Stops a server this process did not start (SIGINT: a fast shutdown) and waits until it has gone. */
export async function stopByPid(pid: number): Promise<void> {
  if (alive(pid)) process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 15000;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * After this process has stopped the server it knew of on `dir`: any postmaster still running there
 * while this process owns the folder (one restarted by hand, e.g. `pg_ctl restart`, under a new pid)
 * is stopped too, then the folder is released.
 */
export async function stopOwned(dir: string): Promise<void> {
  try {
    const left = runningServer(dir);
    if (left && owner(dir) === process.pid) await stopByPid(left.pid);
  } finally {
    if (owner(dir) === process.pid) release(dir);
  }
}
