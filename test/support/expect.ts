import type { Response } from 'supertest';

/** Asserts an RFC 9457 problem response and returns its body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a problem body, read field by field by the tests
export function expectProblem(res: Response, status: number): Record<string, any> {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.text);
  expect(body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
  return body;
}

/** Asserts a 400 naming exactly these parameters, and returns its `errors`. */
export function expectInvalid(res: Response, ...names: string[]): Record<string, string[]> {
  const body = expectProblem(res, 400);
  expect(body.title).toBe('Invalid query parameters');
  expect(Object.keys(body.errors).sort()).toEqual([...names].sort());
  for (const name of names) expect(body.errors[name]).toEqual(expect.arrayContaining([expect.any(String)]));
  return body.errors;
}

/**
 * How many times the raw JSON text holds `"key": literal`. Used for ids past 2^53, which JSON.parse
 * would round: only the text shows whether they are exact.
 */
export function countRaw(text: string, key: string, literal: string): number {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.match(new RegExp(`"${escape(key)}"\\s*:\\s*${escape(literal)}(?=\\s*[,}])`, 'g'))?.length ?? 0;
}
