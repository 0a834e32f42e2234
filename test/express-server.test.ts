// createExpressServer: requests and responses are made with the app's own prototypes, so Express's
// Object.setPrototypeOf in app.handle finds them in place (src/runtime/express-server.ts), and the app
// answers on it as on Node's plain server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressServer } from '../src/runtime/express-server';

async function served(server: http.Server, work: (base: string) => Promise<void>): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await work(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

function appWithProbe() {
  const app = express();
  app.get('/echo', (req, res) => {
    res.set('X-Seen', 'yes').json({ q: req.query.q, host: req.get('host') !== undefined, secure: req.secure });
  });
  return app;
}

it("makes each request and response with the app's prototypes before Express sees them", async () => {
  const app = appWithProbe();
  const server = createExpressServer(app);
  const born: unknown[] = [];
  server.prependListener('request', (req, res) =>
    born.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response),
  );
  await served(server, async (base) => {
    const res = await fetch(`${base}/echo?q=%C3%A9t%C3%A9`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(await res.json()).toEqual({ q: 'été', host: true, secure: false });
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });
  expect(born).toEqual([true, true, true, true]);
});

it("on Node's own server, Express has to change them (what the function saves)", async () => {
  const app = appWithProbe();
  const server = http.createServer(app);
  const born: unknown[] = [];
  server.prependListener('request', (req) => born.push(Object.getPrototypeOf(req) === app.request));
  await served(server, async (base) => {
    expect((await fetch(`${base}/echo?q=x`)).status).toBe(200);
  });
  expect(born).toEqual([false]);
});

it('keeps instanceof, the stream and the response API of Node', async () => {
  const app = express();
  app.get('/', (req, res) => {
    res.json({ request: req instanceof http.IncomingMessage, response: res instanceof http.ServerResponse, readable: typeof req.pipe });
  });
  await served(createExpressServer(app), async (base) => {
    expect(await (await fetch(base)).json()).toEqual({ request: true, response: true, readable: 'function' });
  });
});
