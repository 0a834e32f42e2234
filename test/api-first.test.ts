import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { apiFirst } from '../src/http/api-first';
import { eventually, holdsFor } from './support/wait';

// While the API is busy, admin pages take turns (one at a time, then a pause); idle, they run as many
// at once as their connections. Driven here with requests and answers of its own: a request "ends"
// when its answer closes, as Node's does.

class Answer extends EventEmitter {
  close() {
    this.emit('close');
  }
}
const request = (path = '/admin/checks') => ({ path }) as Request;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An admin page through the gate: `started` once it passed, `end()` closes its answer. */
function page(gate: ReturnType<typeof apiFirst>, path?: string) {
  const res = new Answer();
  const state = { started: false, end: () => res.close() };
  gate.admin(request(path), res as unknown as Response, () => (state.started = true));
  return state;
}

/** An API request in flight until `end()`. */
function apiRequest(gate: ReturnType<typeof apiFirst>) {
  const res = new Answer();
  gate.api(request('/v2/assign-list'), res as unknown as Response, () => undefined);
  return { end: () => res.close() };
}

describe('the API first', () => {
  it('lets admin pages run as many at once as their connections while the API is idle', () => {
    const gate = apiFirst({ share: 0.5, concurrency: 2 });
    const pages = [page(gate), page(gate), page(gate)];
    expect(pages.map((p) => p.started)).toEqual([true, true, false]);
    pages[0].end();
    expect(pages[2].started).toBe(true);
  });

  it('while the API is busy, admin pages go one at a time, each followed by a pause, and all are served', async () => {
    const gate = apiFirst({ share: 0.5, concurrency: 4, windowMs: 20, holdMs: 1000, maxPauseMs: 1000 });
    const api = apiRequest(gate);
    await eventually(() => gate.status().apiOccupancy >= 0.5, { ms: 2000, every: 5, what: 'the API busy' });
    const [a, b, c] = [page(gate), page(gate), page(gate)];
    expect([a.started, b.started, c.started]).toEqual([true, false, false]);
    await wait(40);
    const ended = performance.now();
    a.end(); // held the turn ~40 ms: the next waits about as long (a half share)
    await holdsFor(() => !b.started, 25, { every: 5, what: 'the pause after a page' });
    await eventually(() => b.started, { ms: 2000, every: 5, what: 'the next page after the pause' });
    expect(performance.now() - ended).toBeGreaterThanOrEqual(35);
    expect(c.started).toBe(false);
    expect(gate.status()).toMatchObject({ apiInFlight: 1, adminRunning: 1, adminWaiting: 1 });
    b.end();
    api.end(); // the API goes idle: what waits starts once it counts as idle
    await eventually(() => c.started, { ms: 2000, every: 5, what: 'the last page once the API is idle' });
    c.end();
    expect(gate.status()).toMatchObject({ apiInFlight: 0, adminRunning: 0, adminWaiting: 0, adminWaited: 2 });
  });

  it('never lets one slow page hold the others: its turn ends after holdMs', async () => {
    const gate = apiFirst({ share: 0.5, concurrency: 2, windowMs: 20, holdMs: 30, maxPauseMs: 10 });
    const api = apiRequest(gate);
    await eventually(() => gate.status().apiOccupancy >= 0.5, { ms: 2000, every: 5, what: 'the API busy' });
    const [slow, next] = [page(gate), page(gate)];
    expect(next.started).toBe(false);
    await eventually(() => next.started, { ms: 2000, every: 5, what: 'the page after a slow one' });
    expect(slow.started).toBe(true);
    slow.end();
    next.end();
    api.end();
  });

  it('drops a waiting page whose client left, and does not hold downloads or reports', async () => {
    const gate = apiFirst({ share: 0.5, concurrency: 1, windowMs: 20 });
    const api = apiRequest(gate);
    await eventually(() => gate.status().apiOccupancy >= 0.5, { ms: 2000, every: 5, what: 'the API busy' });
    const first = page(gate);
    const left = page(gate);
    left.end(); // the client leaves while it waits
    expect(gate.status().adminWaiting).toBe(0);
    expect(page(gate, '/admin/checks.csv').started).toBe(true);
    expect(page(gate, '/admin/riders/101/report.pdf').started).toBe(true);
    first.end();
    await holdsFor(() => !left.started, 60, { every: 5, what: 'the page whose client left, not started' });
    api.end();
  });

  it('counts an API with a request in flight now and then as idle: pages then run as many at once as their connections', () => {
    let clock = 0;
    const gate = apiFirst({ share: 0.5, concurrency: 2, windowMs: 200, now: () => clock });
    for (let i = 0; i < 100; i++) {
      const request = apiRequest(gate); // in flight 2 ms of every 10
      clock += 2;
      request.end();
      clock += 8;
    }
    expect(gate.status().apiOccupancy).toBeCloseTo(0.2, 1);
    expect([page(gate), page(gate)].every((p) => p.started)).toBe(true);
    const saturated = apiRequest(gate); // then always one in flight
    clock += 300;
    expect(gate.status().apiOccupancy).toBeGreaterThan(0.5);
    expect(page(gate).started).toBe(false);
    saturated.end();
  });

  it('holds nothing at a share of 100 %', () => {
    const gate = apiFirst({ share: 1, concurrency: 1 });
    apiRequest(gate);
    expect([page(gate), page(gate), page(gate)].every((p) => p.started)).toBe(true);
  });
});
