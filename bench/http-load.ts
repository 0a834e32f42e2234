// The HTTP side: wrk (when installed) or autocannon for the request scenarios, a plain client for
// the full streams.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { pathMaker, type LoadTarget } from './scenarios';
import { children } from './service';
import { percentile } from './stats';

export interface LoadResult {
  /** The load generator that made the requests. */
  generator: 'wrk' | 'autocannon';
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerSec: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Answers other than 2xx, by status, e.g. {"429": 12} (autocannon; wrk counts them only in non2xx). */
  otherStatuses: Record<string, number>;
}

export interface LoadOptions {
  connections: number;
  duration: number;
  headers: Record<string, string>;
}

/** wrk on PATH, unless BENCH_LOAD_GENERATOR=autocannon asks for the other. */
function findWrk(): string | undefined {
  if (process.env.BENCH_LOAD_GENERATOR === 'autocannon') return undefined;
  const run = spawnSync('wrk', ['--version'], { encoding: 'utf8', timeout: 10000 });
  return run.error ? undefined : 'wrk';
}

export const wrkCommand = findWrk();

/**
 * `connections` keep-alive connections for `duration` seconds against `target` (a parameter drawn
 * per request). wrk, a C program, is used when installed: it needs about a quarter of autocannon's
 * CPU per request, and that CPU is taken from the same two cores the service and PostgreSQL share,
 * as pgbench's own client is. Latency percentiles are exact to the microsecond with wrk, and taken
 * from each response event with autocannon (whose histogram rounds to whole milliseconds).
 */
export function runLoad(base: string, target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  return wrkCommand ? runWrk(wrkCommand, base, target, options) : runAutocannon(base, target, options);
}

const timeoutSeconds = (duration: number) => Math.max(30, duration * 3);

/** A Lua script for wrk: a fresh random draw per request, and a JSON summary at the end. */
function wrkScript(target: LoadTarget): string {
  const lua = (text: string) => JSON.stringify(text); // a JSON string is a valid Lua string literal here (ASCII)
  const request = target.random
    ? `local prefix = ${lua(`${target.prefix}${target.random.param}=`)}
request = function()
  return wrk.format(nil, prefix .. math.random(${target.random.min}, ${target.random.max}))
end`
    : `request = function() return wrk.format(nil, ${lua(target.prefix)}) end`;
  return `math.randomseed(os.time())
${request}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nWRK-JSON {"requests":%d,"durationUs":%d,"bytes":%d,"p50Us":%d,"p99Us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;
}

function runWrk(command: string, base: string, target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-')), 'load.lua');
  fs.writeFileSync(script, wrkScript(target));
  const headerArgs = Object.entries(options.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const args = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.duration}s`,
    `--timeout`,
    `${timeoutSeconds(options.duration)}s`,
    '-s',
    script,
    ...headerArgs,
    base,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      children.delete(child);
      fs.rmSync(path.dirname(script), { recursive: true, force: true });
      const line = /WRK-JSON (\{.*\})/.exec(out)?.[1];
      if (code !== 0 || !line) return reject(new Error(`wrk exited with ${code}: ${out.trim().slice(-500)}`));
      const r = JSON.parse(line) as Record<string, number>;
      const seconds = r.durationUs / 1e6;
      const ok = r.requests - r.status;
      resolve({
        generator: 'wrk',
        requests: ok,
        rps: ok / seconds,
        p50Ms: r.p50Us / 1000,
        p99Ms: r.p99Us / 1000,
        bytesPerSec: r.bytes / seconds,
        errors: r.connect + r.read + r.write + r.timeout,
        timeouts: r.timeout,
        non2xx: r.status,
        otherStatuses: {},
      });
    });
  });
}

function runAutocannon(base: string, target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  const nextPath = pathMaker(target);
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections: options.connections,
        duration: options.duration,
        timeout: timeoutSeconds(options.duration),
        headers: options.headers,
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: nextPath() }) }],
      },
      (error, result) => {
        if (error) return reject(error);
        latencies.sort((a, b) => a - b);
        const ok = result['2xx'];
        resolve({
          generator: 'autocannon',
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
export async function fetchJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const { status, body } = await fetchBytes(url, headers);
  if (status !== 200) throw new Error(`GET ${url}: ${status} ${body.toString('utf8').slice(0, 300)}`);
  return JSON.parse(body.toString('utf8'));
}

/** One GET's status and body bytes. */
export function fetchBytes(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
