import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

type Step = { set: [string, string] } | { remove: string };

/**
 * Helmet's headers, worked out once. With static options (no per-request CSP nonce, which this
 * service does not use), helmet sets the same headers on every response through a dozen nested
 * middlewares; here they are recorded from one run of helmet itself and replayed in one loop, so
 * helmet stays the one source of what is sent. If helmet ever does anything but set and remove
 * headers and call next() synchronously, its own middleware is used instead.
 */
export function securityHeaders(options: HelmetOptions): RequestHandler {
  const middleware = helmet(options);
  const steps: Step[] = [];
  let plain = true;
  let nextCalled = false;
  const recorder = {
    setHeader(name: string, value: unknown) {
      if (typeof value === 'string') steps.push({ set: [name, value] });
      else plain = false;
      return recorder;
    },
    removeHeader(name: string) {
      steps.push({ remove: name });
    },
  };
  const request = { method: 'GET', url: '/', headers: {} };
  try {
    middleware(request as never, recorder as never, (error?: unknown) => {
      if (error) plain = false;
      nextCalled = true;
    });
  } catch {
    plain = false;
  }
  if (!plain || !nextCalled) return middleware;
  const isHsts = ([name]: [string, string]) => name.toLowerCase() === 'strict-transport-security';
  const all = steps.flatMap((s) => ('set' in s ? [s.set] : []));
  const sets = all.filter((set) => !isHsts(set));
  const hsts = all.find(isHsts);
  const removes = steps.flatMap((s) => ('remove' in s ? [s.remove] : []));
  return (req, res, next) => {
    for (const [name, value] of sets) res.setHeader(name, value);
    // HSTS only on an answer that came over TLS (directly, or through a trusted proxy: TRUST_PROXY):
    // over plain HTTP it is meaningless (RFC 6797 8.1), and a browser reaching the service by plain
    // HTTP on another name must not be told to insist on an https that is not there.
    if (hsts && req.secure) res.setHeader(hsts[0], hsts[1]);
    for (const name of removes) res.removeHeader(name);
    next();
  };
}
