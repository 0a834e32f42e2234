// An orderly stop on SIGTERM or SIGINT: readiness fails first, the listener drains, what still runs
// gets its time, and the process exits 0 however it ended (a cut export is logged, not a crash).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ShutdownOptions {
  /** SHUTDOWN_DRAIN_MS: how long the listener stays open after the signal, for a balancer to notice. */
  drainMs: number;
  /** SHUTDOWN_TIMEOUT_MS: how long requests still running after the drain may finish. */
  timeoutMs: number;
  /** Where the stop's news goes; `owner` says the steps (a worker's supervisor says them for all). */
  log: (message: string) => void;
  owner: boolean;
  /** Closes what the process holds (pools, databases) once the server is done; then the process exits 0. */
  cleanUp: () => Promise<void>;
}

/** The answer a connection is making (or made last), and since when: two fields, no object per request. */
const CURRENT = Symbol('current request');
const SINCE = Symbol('current request since');
type Connection = Socket & { [CURRENT]?: ServerResponse; [SINCE]?: number };

/**
 * One server's stop. From the signal on, `stopping` is true (so /health/ready answers 503) while the
 * listener still accepts for `drainMs`; then it closes, idle keep-alive connections are closed, and
 * requests still running get `timeoutMs`. Those still running then are cut, one log line each.
 */
export class Shutdown {
  stopping = false;
  private readonly connections = new Set<Connection>();
  private server?: Server;
  private finished = false;

  constructor(private readonly options: ShutdownOptions) {}

  /**
   * Knows the server's requests in flight, to name the ones that have to be cut: each connection
   * holds the request it serves (its latest: of requests a client pipelines, the last is named), so a
   * request costs no listener and no entry of its own, only a connection does.
   */
  track(server: Server): void {
    this.server = server;
    server.on('connection', (socket: Connection) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket as Connection;
      socket[CURRENT] = res;
      socket[SINCE] = Date.now();
    });
  }

  /** The signal: repeated ones (a process group's Ctrl-C and the supervisor's SIGTERM) change nothing. */
  begin(signal: string): void {
    if (this.stopping) return;
    this.stopping = true;
    const { drainMs, timeoutMs, owner, log } = this.options;
    if (owner) {
      log(
        `${signal}: /health/ready answers 503; new connections are accepted for ${drainMs} ms more (SHUTDOWN_DRAIN_MS), ` +
          `then requests in flight have ${timeoutMs} ms (SHUTDOWN_TIMEOUT_MS) to finish`,
      );
    }
    setTimeout(() => this.close(), drainMs);
  }

  private close(): void {
    const server = this.server;
    if (!server) return void this.finish();
    server.close(() => void this.finish());
    // A keep-alive connection whose last answer has just ended would otherwise hold close() open.
    setInterval(() => server.closeIdleConnections(), 200).unref();
    server.closeIdleConnections();
    setTimeout(() => this.cut(), this.options.timeoutMs).unref();
  }

  /** What still runs after the timeout is ended: logged one line each, its connection closed. */
  private cut(): void {
    const now = Date.now();
    const running = [...this.connections].flatMap((socket) => {
      const res = socket[CURRENT];
      return res && !res.writableFinished ? [{ req: res.req, res, since: socket[SINCE] ?? now }] : [];
    });
    for (const { req, res, since } of running) {
      const locals = (res as ServerResponse & { locals?: { requestId?: string; cutAtShutdown?: boolean } }).locals;
      const id = locals?.requestId;
      // Its handler then sees a client gone: this line says what happened, that one is not written.
      if (locals) locals.cutAtShutdown = true;
      // The path as asked (a router mounted on /v2 shortens req.url), without its query: it may hold a secret.
      const path = ((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0];
      this.options.log(
        `Cut at shutdown: ${req.method} ${path}${id ? ` (request ${id})` : ''} was still running after ${now - since} ms ` +
          `(SHUTDOWN_TIMEOUT_MS ${this.options.timeoutMs})`,
      );
    }
    this.server?.closeAllConnections();
    void this.finish();
  }

  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await this.options.cleanUp().catch((error: Error) => this.options.log(`While stopping: ${error.message}`));
    process.exit(0);
  }
}
