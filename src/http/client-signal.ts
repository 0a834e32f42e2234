import type { Response } from 'express';

const SIGNAL = Symbol('client signal');
type WithSignal = Response & { [SIGNAL]?: AbortController };

/**
 * An AbortSignal that aborts when the request's client closes its connection before the answer has
 * been sent: the database work done for it should then stop (or never start). One per request.
 */
export function clientSignal(res: Response): AbortSignal {
  const holder = res as WithSignal;
  let controller = holder[SIGNAL];
  if (!controller) {
    const created = new AbortController();
    controller = created;
    holder[SIGNAL] = created;
    if (res.req.socket.destroyed && !res.writableFinished) created.abort();
    else res.once('close', () => (res.writableFinished ? undefined : created.abort()));
  }
  return controller.signal;
}
