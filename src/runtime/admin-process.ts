import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import os from 'node:os';

// The admin pages in a process of their own (ADMIN_PROCESS, on by default with one process). A page
// costs the event loop as much as twenty API answers, and one thread serves both in one process: eight
// supervisors clicking without pause took most of a saturated API's throughput (issue 43). Here the
// process that listens keeps every connection whose first request is an API call (or anything but an
// admin page) and hands each connection that opens with an admin page to the admin process, socket and
// all (Node's handle passing, as node:cluster hands connections to its workers): no request is proxied,
// no byte copied, and the client's address is the admin process's own. Both processes serve the whole
// app, so a connection that goes on to ask the other kind is still answered. The admin process runs at
// a lower CPU priority (ADMIN_NICE): while the API is busy, the kernel gives the API the cores first.
// Should it stop, the listening process serves the pages itself until another has started.

/** The message that comes with a connection's socket: the bytes the listening process read of it. */
const CONNECTION = 'rider-equipment:admin-connection';
/** The admin process tells it is listening. */
const READY = 'rider-equipment:admin-ready';
/** The admin process has a connection (by its number): the listening process may let its own copy go. */
const TAKEN = 'rider-equipment:admin-taken';
/** A request line for the admin pages (origin-form), as a connection's first bytes show it. */
export const ADMIN_REQUEST_LINE = /^[A-Z]+ \/admin(?:[/? ]|$)/;
/** The first bytes that decide where a connection goes: "OPTIONS /admin/" and one more fit. */
const ROUTING_BYTES = 16;

/** Whether a connection's first bytes say enough to route it: ROUTING_BYTES, or its first line whole. */
function enoughToRoute(head: Buffer): boolean {
  return head.length >= ROUTING_BYTES || head.includes(0x0a);
}

const ignoreError = () => undefined;

/** A socket's libuv handle: Node's own, with no public call to stop the kernel's reads. */
type StreamHandle = { reading: boolean; readStop(): number; readStart(): number };
const handleOf = (socket: Socket) => (socket as unknown as { _handle?: StreamHandle | null })._handle;

/**
 * Stops the kernel's reads of a socket, not only its 'data' events: after `pause()` alone Node goes on
 * reading into the socket's buffer (up to its high-water mark, and at once after each 'data' event), and
 * those bytes would go with this process's copy. `readStop()` is what net.Socket itself calls when its
 * buffer is full; the handle's `reading` flag is left set, so that Node's stream does not start the
 * reads again on its own (it does whenever it finds the flag clear) until startReading.
 */
function stopReading(socket: Socket): void {
  socket.pause();
  handleOf(socket)?.readStop();
}

/** Reads again where stopReading stopped: the buffered bytes first (resume), then the kernel's. */
function startReading(socket: Socket): void {
  socket.resume();
  const handle = handleOf(socket);
  if (handle) {
    handle.reading = true;
    handle.readStart();
  }
}

/** Set in the admin process's environment. */
export const ADMIN_PROCESS_ENV = 'RIDER_EQUIPMENT_ADMIN_PROCESS';

export function isAdminProcess(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[ADMIN_PROCESS_ENV] === '1';
}

export interface AdminProcessOptions {
  /** The server's script, run again as the admin process. */
  script: string;
  /** The CPU niceness of the admin process (0–19). */
  nice: number;
  /** Its environment beyond this process's own: the database's URL, the sessions' secret. */
  env: Record<string, string>;
  log: (message: string) => void;
  /** A connection whose first bytes do not come within this time is served here. */
  firstBytesTimeoutMs?: number;
}

/** The listening process's side: starts the admin process, restarts it, hands it connections. */
export class AdminProcess {
  private child?: ChildProcess;
  private ready = false;
  private stopping = false;
  private exited: Promise<void> = Promise.resolve();
  /** Connections handed over, since the start (for the tests and the metrics). */
  handedOver = 0;
  /** Connections sent and not yet taken, by number: served here should the admin process go first. */
  private readonly sent = new Map<number, { socket: Socket; serveHere: () => void }>();
  private lastSent = 0;

  constructor(private readonly options: AdminProcessOptions) {}

  start(): void {
    const started = Date.now();
    const child = fork(this.options.script, [], {
      env: { ...process.env, ...this.options.env, [ADMIN_PROCESS_ENV]: '1', ADMIN_NICE: String(this.options.nice) },
      execArgv: process.execArgv,
      serialization: 'json',
    });
    this.child = child;
    this.ready = false;
    child.on('message', (message: unknown) => {
      if (message === READY) this.ready = true;
      const taken = message as { type?: string; id?: number } | null;
      if (taken?.type === TAKEN && typeof taken.id === 'number') this.taken(taken.id);
    });
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.ready = false;
        // Sent but never taken (the process died with them in its mailbox): served here.
        const untaken = [...this.sent.values()];
        this.sent.clear();
        for (const { serveHere } of untaken) serveHere();
        resolve();
        if (this.stopping) return;
        // One that dies at once (a bad setting, the database away) is not restarted in a tight loop.
        const soon = Date.now() - started < 5000;
        this.options.log(
          `The admin pages' process ${child.pid} exited (${signal ?? `status ${code}`}); this process serves them until ` +
            `another has started${soon ? ' (in 1 s)' : ''}`,
        );
        setTimeout(() => (this.stopping ? undefined : this.start()), soon ? 1000 : 0).unref();
      }),
    );
    child.on('error', (error) => this.options.log(`The admin pages' process: ${error.message}`));
  }

  get pid(): number | undefined {
    return this.ready ? this.child?.pid : undefined;
  }

  /**
   * Takes the server's connections: each one is read up to its first bytes, then served here or handed
   * over. Call before anything else listens to the server's 'connection' (src/shutdown.ts does).
   */
  route(server: Server): void {
    const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
    if (listeners.length !== 1)
      throw new Error(`AdminProcess.route: expected only the HTTP server's own connection listener, found ${listeners.length}`);
    const [serve] = listeners;
    server.removeListener('connection', serve);
    const timeoutMs = this.options.firstBytesTimeoutMs ?? 10000;
    server.on('connection', (socket: Socket) => {
      if (!this.ready) return void serve.call(server, socket);
      const chunks: Buffer[] = [];
      let length = 0;
      // Served here with every byte read so far put back first; the HTTP server then handles its errors.
      const here = () => {
        off();
        if (socket.destroyed) return; // gone meanwhile (while it waited for an admin process that died)
        if (length) socket.unshift(Buffer.concat(chunks, length));
        serve.call(server, socket);
        startReading(socket);
      };
      // A client that connects and says too little (a browser's preconnect) is served here in the end,
      // under the HTTP server's own timeouts.
      const timer = setTimeout(() => {
        stopReading(socket);
        here();
      }, timeoutMs);
      const data = (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        const head = Buffer.concat(chunks, length);
        if (!enoughToRoute(head)) return;
        // Nothing more is read here: what the client sends from now on waits in the kernel for whichever
        // process serves it, so no byte can be read by this one and then lost with its copy.
        stopReading(socket);
        clearTimeout(timer);
        if (ADMIN_REQUEST_LINE.test(head.toString('latin1', 0, ROUTING_BYTES)) && socket.readableLength === 0) {
          off(); // the 'error' listener stays until this copy is let go (handOver)
          if (this.handOver(socket, head, () => here())) return;
        }
        here();
      };
      // A client gone before its first bytes were enough: nothing to serve.
      const gone = () => {
        clearTimeout(timer);
        socket.destroy();
      };
      const off = () => void socket.off('data', data).off('end', gone).off('error', gone);
      socket.on('data', data).on('end', gone).on('error', gone);
    });
  }

  /**
   * Sends the connection to the admin process; `orHere` serves it here should that process be gone.
   * This process keeps its copy of the socket, not reading, until the admin process says it has taken it:
   * one that is dying (its exit not yet seen here) may still accept the message and then never read it.
   * Until then an error on this copy (the client gone) is the admin process's to meet, not this one's.
   */
  private handOver(socket: Socket, head: Buffer, orHere: () => void): boolean {
    const child = this.child;
    if (!this.ready || !child?.connected) return false;
    const id = ++this.lastSent;
    socket.on('error', ignoreError);
    const serveHere = () => {
      socket.off('error', ignoreError);
      orHere();
    };
    this.sent.set(id, { socket, serveHere });
    child.send({ type: CONNECTION, id, head: head.toString('latin1') }, socket, { keepOpen: true }, (error) => {
      if (error && this.sent.delete(id)) serveHere();
    });
    return true;
  }

  private taken(id: number): void {
    const sent = this.sent.get(id);
    if (!sent) return;
    this.sent.delete(id);
    this.handedOver++;
    // This process's copy only: the connection stays open in the admin process.
    sent.socket.destroy();
  }

  /** Tells the admin process to stop (it drains as this one does); resolves once it has exited. */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.stopping = true;
    this.ready = false;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
    return this.exited;
  }
}

/**
 * The admin process's side: serves the connections the listening process hands it, on `server`
 * (which listens on a loopback port of its own, unused, so that its timeouts and its close work as a
 * listening server's). Resolves nothing; stops the process when the listening one is gone.
 */
export function serveHandedConnections(server: Server, onOrphaned: () => void): void {
  process.on('message', (message: unknown, socket?: Socket) => {
    const m = message as { type?: string; id?: number; head?: string } | null;
    if (m?.type !== CONNECTION || !socket) return;
    // Said before its first bytes are read here: the listening process lets its copy go.
    process.send?.({ type: TAKEN, id: m.id });
    // The bytes read so far go first; what the client sent since is still in the socket, after them.
    if (m.head) socket.unshift(Buffer.from(m.head, 'latin1'));
    server.emit('connection', socket);
    socket.resume();
  });
  // The listening process is gone (stopped, or killed): no connection can come any more.
  process.once('disconnect', onOrphaned);
  server.once('listening', () => process.send?.(READY));
}

/**
 * Lowers this process's CPU priority to `nice`, on every thread it has (Linux sets it per thread;
 * threads started later inherit it from the main one).
 */
export function lowerPriority(nice: number): void {
  if (nice <= 0) return;
  let threads: number[];
  try {
    threads = fs.readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0]; // elsewhere the process's priority is the threads' own
  }
  for (const thread of threads) {
    try {
      os.setPriority(thread, nice);
    } catch {
      // a thread that ended meanwhile
    }
  }
}
