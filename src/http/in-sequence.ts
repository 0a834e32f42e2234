import type { RequestHandler } from 'express';

/** Middlewares run one after the other as one; an error (thrown or passed on) goes to `next`, and so does the end. */
export function inSequence(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (error?: unknown) => {
      if (error) return next(error);
      const handler = handlers[i++];
      if (!handler) return next();
      try {
        handler(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
