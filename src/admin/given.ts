import type { Response } from 'express';
import type { Supervisor } from '../auth/supervisors';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { clientSignal } from '../http/client-signal';
import { links } from '../html/links';
import { scopeOf } from '../html/scope';
import { riderRules, type AttentionQuery } from '../rules';
import { givenCount } from '../rules/owners';

// "Given to you": the rows of each rider rule a lead gave to the signed-in supervisor, still listed and not
// handled, each count leading to that rule's list narrowed to them. On the overview and on Needs attention.

/** Counted exactly up to this; past it, "more than". */
export const GIVEN_CAP = 1000;

export interface Given {
  name: string;
  title: string;
  total: number;
  capped: boolean;
  href: string;
}

/**
 * The signed-in supervisor's rows per rider rule at the end of `asOf` (null: now), in their scope, or
 * nothing without one (sign-in off). Each count reads only their own rows of access.attention_owners.
 */
export async function givenTo(
  pool: Reader,
  res: Response,
  q: AttentionQuery,
  listQuery: Record<string, string>,
): Promise<Given[] | undefined> {
  const supervisor = res.locals.supervisor as Supervisor | undefined;
  if (!supervisor) return undefined;
  const signal = clientSignal(res);
  const scoped = { ...q, scope: scopeOf(res) };
  return Promise.all(
    riderRules.map(async (rule) => {
      const [{ total }] = await queryRows<{ total: string }>(pool, toNative(givenCount(rule, scoped, supervisor.id, GIVEN_CAP)), signal);
      const n = Number(total);
      return {
        name: rule.name,
        title: rule.title,
        total: Math.min(n, GIVEN_CAP),
        capped: n > GIVEN_CAP,
        href: links.attentionRule(rule.name, { ...listQuery, owner: supervisor.username }),
      };
    }),
  );
}
