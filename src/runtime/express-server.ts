import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * An HTTP server for an Express app whose requests and responses are made with the app's own
 * prototypes (`app.request`, `app.response`) from the start, as Node's `IncomingMessage` and
 * `ServerResponse` options allow.
 *
 * Express gives every request and response those prototypes itself, with `Object.setPrototypeOf` in
 * `app.handle`. Done on objects V8 has already built, that one call costs more than the rest of a
 * small answer's routing: each request's objects then lived through two young-generation collections
 * and were promoted, to be found dead by a full collection later (a hello-world Express app on this
 * machine: 11,100 against 35,500 requests a second, about 1 MB promoted per collection against none;
 * docs/runs/BENCHMARKS.md). Made with them, Express's call finds the prototype already in place and
 * changes nothing.
 */
export function createExpressServer(app: Express): http.Server {
  // Node's constructors are plain functions (not classes), run here on the object `new` made with
  // the app's prototype. (Reflect.construct with the app's prototype as newTarget made the objects
  // too, but V8 then built them slowly: slower than Express's own change of prototype.)
  function Request(this: http.IncomingMessage, socket: Socket) {
    (http.IncomingMessage as unknown as (this: unknown, socket: Socket) => void).call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown) {
    (http.ServerResponse as unknown as (this: unknown, req: http.IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  Response.prototype = app.response;
  return http.createServer(
    {
      IncomingMessage: Request as unknown as typeof http.IncomingMessage,
      ServerResponse: Response as unknown as typeof http.ServerResponse,
    },
    app,
  );
}
