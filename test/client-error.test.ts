// What Node's HTTP parser refuses still gets an answer that says why.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '../src/http/client-error';
import { testApp, type TestApp } from './support/app';

let t: TestApp;
let server: http.Server;
let port: number;
beforeAll(async () => {
  t = testApp();
  server = answerClientErrors(http.createServer(t.app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

/** Sends `raw` bytes and resolves with everything the server answers before it closes. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(body) };
}

it('answers a URL over 16 KB with 431 and a problem+json body', async () => {
  const answer = parse(await exchange(`GET /v2/riders?3pl=${'a'.repeat(17000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
  expect(answer.status).toBe(431);
  expect(answer.headers).toMatch(/Content-Type: application\/problem\+json/);
  expect(answer.body).toEqual({
    type: 'about:blank',
    title: 'Request Header Fields Too Large',
    status: 431,
    detail: 'The request line and headers together are over 16 KB; send fewer or shorter filters.',
  });
});

it('answers an admin page’s URL over 16 KB with 431 and a page, as the admin answers its errors', async () => {
  const answer = await exchange(`GET /admin/checks?3pl=${'a'.repeat(17000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 431 /);
  expect(head).toMatch(/Content-Type: text\/html; charset=utf-8/);
  expect(body).toContain('<h1>Request Header Fields Too Large</h1>');
  expect(body).toContain('href="/admin"');
});

it('answers malformed HTTP with 400 and a problem+json body', async () => {
  const answer = parse(await exchange('NOT HTTP AT ALL\r\n\r\n'));
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ title: 'Bad Request', status: 400, detail: 'The request is not valid HTTP.' });
});

it('still serves a request of ordinary size on the same server', async () => {
  const answer = await exchange('GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
});
