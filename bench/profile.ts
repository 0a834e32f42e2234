// `npm run bench -- --profile`: where the service's CPU per request goes, next to the bare server's.
// Each of the two runs under `node --cpu-prof` for one load scenario (warm-up, then --duration s of
// wrk or autocannon); the profile's samples are summed by component (an npm package, a Node.js core
// module, a file of the service, or V8's own work such as the garbage collector) and divided by the
// requests answered. The CPU time the kernel counted for the process (/proc/<pid>/stat) is shown too:
// the profile does not see everything (system calls are partly outside it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runLoad } from './http-load';
import { fmt } from './runner';
import { bareRoute, loadTarget, type LoadScenario } from './scenarios';
import { startBareServer, startService } from './service';

/** CPU microseconds per request, by component. */
export type Components = Record<string, number>;

export interface ProfiledRun {
  requests: number;
  rps: number;
  /** utime + stime of the process over the measured load, per request (µs); undefined off Linux. */
  cpuUsPerRequest?: number;
  /** Profile samples, per request (µs), over the process's life: start-up and warm-up included. */
  sampledUsPerRequest: number;
  components: Components;
}

export interface ProfileResult {
  label: string;
  service: ProfiledRun;
  bare: ProfiledRun;
}

/** The component a profile node belongs to, from its function's script URL. */
export function componentOf(url: string, functionName: string): string {
  if (!url) return `(${functionName.replace(/^\(|\)$/g, '')})`; // V8 and native work: (garbage collector), (program), writev…
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url); // the innermost package
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?([^/]+).*$/, 'node:$1$2');
  const own = /\/dist\/((?:src|bench)\/.*)\.js$/.exec(url);
  return own ? own[1] : url;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/** A .cpuprofile summed by component (µs), idle time left out. */
export function sumByComponent(profile: CpuProfile): Components {
  const timeOf = new Map<number, number>();
  profile.samples.forEach((id, i) => timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const sums: Components = {};
  for (const node of profile.nodes) {
    const time = timeOf.get(node.id);
    if (!time || node.callFrame.functionName === '(idle)') continue;
    const component = componentOf(node.callFrame.url, node.callFrame.functionName);
    sums[component] = (sums[component] ?? 0) + time;
  }
  return sums;
}

export function cpuMicroseconds(pid: number): number | undefined {
  try {
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th, in clock ticks (100 a second).
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10000;
  } catch {
    return undefined;
  }
}

interface Options {
  connections: number;
  duration: number;
  warmup: number;
}

async function profiledRun(
  start: (flags: string[]) => Promise<{ base: string; pid: number; headers?: Record<string, string>; stop: () => Promise<void> }>,
  scenario: LoadScenario,
  options: Options,
): Promise<ProfiledRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-profile-'));
  try {
    const running = await start(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const target = loadTarget(scenario);
    const load = { connections: options.connections, headers: running.headers ?? {} };
    let requests = 0;
    let measured;
    let cpu: number | undefined;
    try {
      if (options.warmup > 0) requests += (await runLoad(running.base, target, { ...load, duration: options.warmup })).requests;
      const before = cpuMicroseconds(running.pid);
      measured = await runLoad(running.base, target, { ...load, duration: options.duration });
      const after = cpuMicroseconds(running.pid);
      if (before !== undefined && after !== undefined) cpu = (after - before) / measured.requests;
      requests += measured.requests;
    } finally {
      await running.stop(); // the profile is written as the process exits
    }
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('node wrote no .cpuprofile');
    const sums = sumByComponent(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile);
    const components: Components = Object.fromEntries(Object.entries(sums).map(([name, us]) => [name, us / requests]));
    const sampled = Object.values(components).reduce((a, b) => a + b, 0);
    return { requests, rps: measured.rps, cpuUsPerRequest: cpu, sampledUsPerRequest: sampled, components };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The service, then the bare server, each profiled on each scenario in a fresh process. */
export async function runProfile(
  databaseUrl: string,
  token: string,
  scenarios: LoadScenario[],
  options: Options,
  log: (message: string) => void,
): Promise<ProfileResult[]> {
  const results: ProfileResult[] = [];
  for (const scenario of scenarios) {
    const label = `/v2${scenario.path} (${scenario.label})`;
    const route = await bareRoute(scenario, 0);
    const service = await profiledRun((flags) => startService(databaseUrl, token, {}, flags), scenario, options);
    const bare = await profiledRun((flags) => startBareServer(databaseUrl, [route], flags), scenario, options);
    const cpu = (run: ProfiledRun) => (run.cpuUsPerRequest === undefined ? '' : `, ${Math.round(run.cpuUsPerRequest)} µs CPU per request`);
    log(`  ${label}: service ${fmt(service.rps)} req/s${cpu(service)} | bare ${fmt(bare.rps)} req/s${cpu(bare)}`);
    results.push({ label, service, bare });
  }
  return results;
}

/** Per scenario: the components by what the service spends on them beyond the bare server (µs per request). */
export function profileTable(results: ProfileResult[], rows = 25): string {
  const out: string[] = [];
  for (const r of results) {
    const names = [...new Set([...Object.keys(r.service.components), ...Object.keys(r.bare.components)])];
    const line = (name: string, s: number, b: number) =>
      `| ${name.padEnd(40)} | ${s.toFixed(1).padStart(7)} | ${b.toFixed(1).padStart(7)} | ${(s - b).toFixed(1).padStart(7)} |`;
    const sorted = names
      .map((name) => ({ name, s: r.service.components[name] ?? 0, b: r.bare.components[name] ?? 0 }))
      .sort((x, y) => y.s - y.b - (x.s - x.b));
    const shown = sorted.slice(0, rows);
    const rest = sorted.slice(rows);
    const sum = (list: typeof sorted, key: 's' | 'b') => list.reduce((a, x) => a + x[key], 0);
    out.push(
      `${r.label}: ${r.service.requests} requests to the service, ${r.bare.requests} to the bare server (warm-up included)`,
      '',
      `| ${'component'.padEnd(40)} | service | bare    | more    |`,
      `|${'-'.repeat(42)}|---------|---------|---------|`,
      ...shown.map((x) => line(x.name, x.s, x.b)),
      line(`(${rest.length} others)`, sum(rest, 's'), sum(rest, 'b')),
      line('all samples (start-up included)', r.service.sampledUsPerRequest, r.bare.sampledUsPerRequest),
      ...(r.service.cpuUsPerRequest !== undefined && r.bare.cpuUsPerRequest !== undefined
        ? [line('CPU time from /proc, measured load only', r.service.cpuUsPerRequest, r.bare.cpuUsPerRequest)]
        : []),
      '',
    );
  }
  return out.join('\n');
}
