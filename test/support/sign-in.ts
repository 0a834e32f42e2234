// What the sign-in tests (test/admin-sign-in*.test.ts) share: their supervisors' password, and the
// cookies of an answer (the session's, the sign-in form token's, or any other by name).
import type request from 'supertest';
import { csrfToken } from './html';

/** The password of every supervisor the sign-in tests make. */
export const password = 'correct horse battery';

/** The CSRF token of a page's form. */
export const csrfOf = csrfToken;

export const cookieNamed = (res: request.Response, name: string) =>
  ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
export const cookieOf = (res: request.Response) => cookieNamed(res, 'rider_equipment.sid');
export const formCookieOf = (res: request.Response) => cookieNamed(res, 'rider_equipment.sign_in');
