import type { TLSSocket } from 'node:tls';
import type { Request, RequestHandler, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

type Step = { set: [string, string] } | { remove: string };

/** Sets a response's security headers; the request tells whether it came over TLS. */
export type HeaderSetter = (req: Request, res: Response) => void;

/**
 * Helmet's headers, worked out once. With static options (no per-request CSP nonce, which this
 * service does not use), helmet sets the same headers on every response through a dozen nested
 * middlewares; here they are recorded from one run of helmet itself and replayed in one loop, so
 * helmet stays the one source of what is sent. If helmet ever does anything but set and remove
 * headers and call next() synchronously, its own middleware is used instead.
 *
 * `behindProxy` (TRUST_PROXY set): whether a request came over TLS is Express's `req.secure`, which
 * reads the trusted proxy's X-Forwarded-Proto; without a trusted proxy it is the socket's own
 * encryption, read directly (the same answer, without Express's settings lookups on every request).
 */
export function securityHeaders(options: HelmetOptions, behindProxy = true): RequestHandler {
  const set = fixedSecurityHeaders(options, behindProxy);
  if (!set) return helmet(options);
  return (req, res, next) => {
    set(req, res);
    next();
  };
}

/** helmet's headers for `options` as one function, or undefined when helmet needs each request (a nonce). */
export function fixedSecurityHeaders(options: HelmetOptions, behindProxy = true): HeaderSetter | undefined {
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
  if (!plain || !nextCalled) return undefined;
  const isHsts = ([name]: [string, string]) => name.toLowerCase() === 'strict-transport-security';
  const all = steps.flatMap((s) => ('set' in s ? [s.set] : []));
  const sets = all.filter((set) => !isHsts(set));
  const names = sets.map(([name]) => name);
  const values = sets.map(([, value]) => value);
  const hsts = all.find(isHsts);
  const removes = steps.flatMap((s) => ('remove' in s ? [s.remove] : []));
  const overTls = behindProxy ? (req: Request) => req.secure : (req: Request) => (req.socket as TLSSocket).encrypted === true;
  return (req, res) => {
    for (let i = 0; i < names.length; i++) res.setHeader(names[i], values[i]);
    // HSTS only on an answer that came over TLS (directly, or through a trusted proxy: TRUST_PROXY):
    // over plain HTTP it is meaningless (RFC 6797 8.1), and a browser reaching the service by plain
    // HTTP on another name must not be told to insist on an https that is not there.
    if (hsts && overTls(req)) res.setHeader(hsts[0], hsts[1]);
    for (let i = 0; i < removes.length; i++) res.removeHeader(removes[i]);
  };
}

/**
 * The API's answers: JSON that no browser renders as a page, so the headers that protect a JSON
 * answer (as the OWASP REST Security Cheat Sheet lists them), from helmet: a policy that allows the
 * answer to load nothing and be framed nowhere (`default-src 'none'; frame-ancestors 'none'`, stricter
 * than the pages'), nosniff, no framing, no referrer, same-origin resources, and HSTS over TLS. The
 * page-only ones (the cross-origin opener policy, origin-keyed agent clusters, DNS prefetch, IE's
 * download and XSS-filter switches, Flash's cross-domain policies) govern documents a browser opens,
 * and are left to the pages, which keep helmet's defaults: about 700 bytes less per API answer.
 */
export const API_HEADERS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  xFrameOptions: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};
