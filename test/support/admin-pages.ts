// What the tests of the admin pages over the hand-written fixture (test/admin-pages*.test.ts) read of
// a page: its HTML, asked for with the status it must have, its text, and its first table's cells.
import type { Express } from 'express';
import request from 'supertest';
import { tableRows, textOf } from './html';

export const text = (html: string) => textOf(html);
/** The cells' text of the first table body on the page, row by row. */
export const rows = (html: string) => tableRows(html);
export const column = (html: string, index: number) => rows(html).map((row) => row[index]);

/** The HTML page of `app` at `path`, which must answer `status`. */
export async function htmlPage(app: Express, path: string, status = 200): Promise<string> {
  const res = await request(app).get(path);
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  return res.text;
}
