import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import { tokenShaped } from './access-log';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every request an id (a caller's X-Request-Id is kept when it is safe to echo, and is no API
 * token: the log writes the id), sent back in X-Request-Id.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) && !tokenShaped(incoming) ? incoming : crypto.randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
