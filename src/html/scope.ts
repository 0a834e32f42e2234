import type { Response } from 'express';
import type { Scope } from '../filters/scope';

/**
 * The 3PL a signed-in supervisor is limited to, as the access layer left it in res.locals (never
 * from the request). Without sign-in, or for a supervisor of every 3PL, there is no limit.
 */
export function scopeOf(res: Response): Scope {
  const supervisor = res.locals.supervisor as { companyId?: string | null } | undefined;
  return supervisor?.companyId ? { company_id: supervisor.companyId } : {};
}
