// The HTTP side: autocannon for the request scenarios, a plain client for the full streams.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { percentile } from './stats';

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerSec: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Answers other than 2xx, by status, e.g. {"429": 12}: the first thing to look at when non2xx > 0. */
  otherStatuses: Record<string, number>;
}

/**
 * `connections` keep-alive connections for `duration` seconds, each request's path from `nextPath`
 * (autocannon's setupRequest), e.g. with a random rider id. Latencies are taken exactly from each
 * response event (autocannon's own histogram rounds to whole milliseconds).
 */
export function runLoad(
  base: string,
  nextPath: () => string,
  options: { connections: number; duration: number; headers: Record<string, string> },
): Promise<LoadResult> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections: options.connections,
        duration: options.duration,
        timeout: Math.max(30, options.duration * 3),
        headers: options.headers,
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: nextPath() }) }],
      },
      (error, result) => {
        if (error) return reject(error);
        latencies.sort((a, b) => a - b);
        const ok = result['2xx'];
        resolve({
          requests: ok,
          rps: ok / result.duration,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          bytesPerSec: result.throughput.total / result.duration,
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          otherStatuses: Object.fromEntries(
            Object.entries(result.statusCodeStats ?? {})
              .filter(([status]) => !status.startsWith('2'))
              .map(([status, stats]) => [status, stats.count ?? 0]),
          ),
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

export interface StreamResult {
  status: number;
  bytes: number;
  seconds: number;
  firstByteSeconds: number;
}

/** One GET read to the end as fast as this process can drain it, counting bytes. */
export function fetchStream(url: string, headers: Record<string, string>, timeoutMs: number): Promise<StreamResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let bytes = 0;
      let firstByte = NaN;
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByte = (performance.now() - started) / 1000;
        bytes += chunk.length;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, bytes, seconds: (performance.now() - started) / 1000, firstByteSeconds: firstByte }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
  });
}

/** A small GET whose JSON body is needed (e.g. the last_page of the equipment list). */
export function fetchJson(url: string, headers: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`GET ${url}: ${res.statusCode} ${body.slice(0, 300)}`));
          try {
            resolve(JSON.parse(body));
          } catch (error) {
            reject(error);
          }
        });
      })
      .on('error', reject);
  });
}
