import type { AttentionSettings } from '../config';
import { ruleListResources } from './attention';
import type { ListResource } from './list-definition';
import { allLists } from './lists';

/**
 * Every admin list, in one registry: the five lists of src/admin/lists.ts and one per rider rule of
 * "Needs attention". The router, the bench, the security scan and the side-by-side script read them
 * from here. Each list's statements are built once when the registry is made, so that a filter on a
 * column the list does not keep (src/queries/list-keys.ts) stops the start with its name, instead of
 * answering every page of the list 500.
 */
export function adminLists(settings: AttentionSettings): ListResource[] {
  return built([...allLists, ...ruleListResources(settings)]);
}

/** The lists, each of whose statements has been built once (its SQL, not run): a list that cannot be is an error naming it. */
export function built(lists: ListResource[]): ListResource[] {
  for (const list of lists) {
    try {
      for (const builder of [list.filtered({}), list.keys?.({}), list.columns(list.filtered({}), {})]) builder?.toSQL();
    } catch (error) {
      throw new Error(`The admin list ${list.path} cannot be built: ${(error as Error).message}`, { cause: error });
    }
  }
  return lists;
}
