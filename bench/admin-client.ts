// A supervisor's browser, as far as the bench needs one: signs in through the form (its CSRF token and
// session cookie), then opens pages with the session cookie on keep-alive connections, timing each
// answer to its last byte.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** What a browser sends with a page request (a compressed answer, as browsers ask for). */
const BROWSER_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br',
  'user-agent': 'rider-equipment-bench',
};

export interface Timed {
  /** The HTTP status, or 0 when no answer came (connection error, timeout). */
  status: number;
  ms: number;
  bytes: number;
  error?: string;
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function request(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent; timeoutMs?: number },
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method: options.method ?? 'GET', headers: options.headers, agent: options.agent, timeout: options.timeoutMs ?? 60000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${(options.timeoutMs ?? 60000) / 1000} s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The cookies a response sets, as name=value pairs merged into `jar`. */
export function mergeCookies(jar: Map<string, string>, setCookie: readonly string[] | undefined): void {
  for (const line of setCookie ?? []) {
    const pair = line.split(';')[0];
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}

/** The `_csrf` hidden input's value in a page. */
export function csrfTokenOf(html: string): string | undefined {
  const input = /<input[^>]*name="_csrf"[^>]*>/.exec(html)?.[0];
  return input ? /value="([^"]*)"/.exec(input)?.[1] : undefined;
}

export class AdminBrowser {
  private constructor(
    readonly base: string,
    private readonly cookie: string,
  ) {}

  /** The session's cookie header, for a request the bench makes itself (a download read as it comes). */
  get cookieHeader(): string {
    return this.cookie;
  }

  /** Signs in as a browser does: GET the form (cookie and `_csrf`), POST it, keep the new session cookie. */
  static async signIn(base: string, username: string, password: string): Promise<AdminBrowser> {
    const jar = new Map<string, string>();
    const form = await request(base, '/admin/sign-in', { headers: { accept: BROWSER_HEADERS.accept } });
    mergeCookies(jar, form.headers['set-cookie']);
    const csrf = csrfTokenOf(form.body.toString('utf8'));
    if (form.status !== 200 || !csrf) throw new Error(`GET /admin/sign-in answered ${form.status} without a _csrf field`);
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const body = new URLSearchParams({ username, password, _csrf: csrf, next: '/admin' }).toString();
    const posted = await request(base, '/admin/sign-in', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
        cookie: cookieHeader(),
      },
      body,
    });
    mergeCookies(jar, posted.headers['set-cookie']);
    if (posted.status !== 303) throw new Error(`POST /admin/sign-in answered ${posted.status}, not 303: the sign-in failed`);
    const browser = new AdminBrowser(base, cookieHeader());
    const home = await browser.get('/admin');
    if (home.status !== 200) throw new Error(`GET /admin after signing in answered ${home.status}`);
    return browser;
  }

  /** One page's status and text (not timed). */
  async text(path: string, timeoutMs = 60000): Promise<{ status: number; body: string }> {
    const { 'accept-encoding': _compressed, ...plain } = BROWSER_HEADERS;
    const res = await request(this.base, path, { headers: { ...plain, cookie: this.cookie }, timeoutMs });
    return { status: res.status, body: res.body.toString('utf8') };
  }

  /** A form posted as a browser posts it, timed to the answer's last byte (a redirect is not followed). */
  async post(path: string, fields: Record<string, string>, timeoutMs = 60000): Promise<Timed & { body: string; location?: string }> {
    const body = new URLSearchParams(fields).toString();
    const { 'accept-encoding': _compressed, ...plain } = BROWSER_HEADERS;
    const headers = {
      ...plain,
      cookie: this.cookie,
      origin: this.base,
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(body)),
    };
    const started = performance.now();
    const res = await request(this.base, path, { method: 'POST', headers, body, timeoutMs });
    const text = res.body.toString('utf8');
    return { status: res.status, ms: performance.now() - started, bytes: res.body.length, body: text, location: res.headers.location };
  }

  /** One page, timed from the request to the answer's last byte; failures are a status of 0, not thrown. */
  async get(path: string, agent?: http.Agent, timeoutMs = 60000): Promise<Timed> {
    const started = performance.now();
    try {
      const res = await request(this.base, path, { headers: { ...BROWSER_HEADERS, cookie: this.cookie }, agent, timeoutMs });
      return { status: res.status, ms: performance.now() - started, bytes: res.body.length };
    } catch (error) {
      return { status: 0, ms: performance.now() - started, bytes: 0, error: (error as Error).message };
    }
  }
}

/** One keep-alive connection, as one browser tab holds (a fresh one per client). */
export const connection = () => new http.Agent({ keepAlive: true, maxSockets: 1 });
