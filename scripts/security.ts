// npm run security: sqlmap (Debian's package) against every /v2 filter and every admin filter form of a
// running service on loopback. Fails (exit 1) on any finding, or when sqlmap cannot run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LIST_PARAM_NAMES } from '../src/admin/list-params';
import { adminLists } from '../src/admin/registry';
import { DEFAULT_ATTENTION } from '../src/config';
import { operations } from '../src/api/v2/operations';
import type { Params } from '../src/filters/define';
import { projectRoot } from '../src/paths';
import * as questions from '../src/queries/questions';

// Every admin filter form, from the same definitions the pages validate with.
const ADMIN_FORMS: Array<[string, Params]> = [
  ...adminLists(DEFAULT_ATTENTION).map((list): [string, Params] => [`/admin${list.path}`, list.filters]),
  ['/admin/questionnaire', questions.params],
];

const TEXT: Record<string, string> = { exchange_type: 'Damaged', return_condition: 'Good', q: 'Ali' };

/** A value each parameter accepts, so that sqlmap starts from a valid request. */
function sample(name: string, params: Params): string {
  const def = params[name];
  if (!def) return name === 'per_page' ? '25' : name === 'dir' ? 'desc' : '1';
  switch (def.type) {
    case 'date':
      return /_to$/.test(name) ? '2026-12-31' : '2025-01-01';
    case 'boolean':
      return '1';
    case 'enum':
      return def.values![0];
    case 'text':
      return TEXT[name] ?? 'Swift & Co';
    default:
      return '1';
  }
}

async function startService(): Promise<{ base: string; token: string; user: string; password: string; stop: () => void }> {
  const child = spawn(process.execPath, [path.join(projectRoot, 'dist/src/server.js')], {
    env: {
      ...process.env,
      PORT: '0',
      LOG_REQUESTS: 'off',
      EMBEDDED_PG_DIR: '.data/security-postgres',
      API_RATE_LIMIT_PER_MINUTE: '10000000',
      AUTH_FAILURES_PER_MINUTE: '10000000',
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${out}`)), 120000);
    child.stdout.on('data', () => {
      const base = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /Bearer (rev2_\S+)"/.exec(out)?.[1];
      const login = /Demo sign-in for \/admin .*: (\S+) \/ (\S+)/.exec(out);
      if (base && token && login) {
        clearTimeout(timer);
        resolve({ base, token, user: login[1], password: login[2], stop: () => child.kill('SIGTERM') });
      }
    });
    child.on('exit', () => reject(new Error(`the service exited:\n${out}`)));
  });
}

/** Signs in as the demo supervisor and returns the session cookie. */
async function adminCookie(base: string, user: string, password: string): Promise<string> {
  const form = await fetch(`${base}/admin/sign-in`);
  const cookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const res = await fetch(`${base}/admin/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, username: user, password, next: '/admin' }),
  });
  if (res.status !== 303) throw new Error(`demo sign-in failed: ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

function sqlmap(url: string, params: string[], header: string, outDir: string): { vulnerable: boolean; log: string } {
  const run = spawnSync(
    'sqlmap',
    [
      '-u',
      url,
      '-p',
      params.join(','),
      '--batch',
      '--dbms=PostgreSQL',
      '--level=2',
      '--risk=1',
      '--technique=BEUST',
      '--time-sec=2',
      '--flush-session',
      '--disable-coloring',
      '--skip-waf',
      `--output-dir=${outDir}`,
      '--timeout=60',
      '-H',
      header,
      '--ignore-code=400,401,404',
      '--answers=follow=N',
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const log = `${run.stdout}${run.stderr}`;
  if (run.error || run.status !== 0) throw new Error(`sqlmap failed on ${url}: ${run.error?.message ?? log.slice(-2000)}`);
  const vulnerable = /is vulnerable|appears to be injectable|sqlmap identified the following injection point/i.test(log);
  return { vulnerable, log };
}

async function main(): Promise<void> {
  try {
    execFileSync('sqlmap', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('sqlmap is not installed: apt-get install sqlmap');
  }
  const service = await startService();
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlmap-'));
  const findings: string[] = [];
  let checked = 0;
  try {
    const cookie = await adminCookie(service.base, service.user, service.password);
    const targets: Array<[string, Params, string[], string]> = [
      ...Object.entries(operations).map(([op, { validate }]): [string, Params, string[], string] => {
        const params: Params = validate.params;
        return [`/v2${op}`, params, Object.keys(params).filter((p) => !params[p].aliasOf), `Authorization: Bearer ${service.token}`];
      }),
      ...ADMIN_FORMS.map(([page, filters]): [string, Params, string[], string] => [
        page,
        filters,
        [...Object.keys(filters), ...LIST_PARAM_NAMES.filter((p) => p !== 'sort')],
        `Cookie: ${cookie}`,
      ]),
      ['/admin/search', {}, ['q'], `Cookie: ${cookie}`],
    ];
    for (const [target, defs, params, header] of targets) {
      const url = `${service.base}${target}?${params.map((p) => `${p}=${encodeURIComponent(sample(p, defs))}`).join('&')}`;
      const started = Date.now();
      const { vulnerable, log } = sqlmap(url, params, header, outDir);
      checked += params.length;
      console.log(
        `${vulnerable ? 'FINDING' : 'clean  '} ${target} (${params.length} parameters, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
      if (vulnerable)
        findings.push(
          `${target}\n${log
            .split('\n')
            .filter((l) => /Parameter:|Type:|Title:|Payload:/.test(l))
            .join('\n')}`,
        );
    }
  } finally {
    service.stop();
    fs.rmSync(outDir, { recursive: true, force: true });
  }
  console.log(
    `\nsqlmap checked ${checked} parameters on ${Object.keys(operations).length + ADMIN_FORMS.length + 1} pages: ${findings.length} finding(s).`,
  );
  if (findings.length) {
    console.log(findings.join('\n\n'));
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
