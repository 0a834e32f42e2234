import type { ParamValues, Params } from '../filters/define';
import type { QueryValidator } from '../filters/validate';
import { HttpError, type FieldErrors } from '../http/errors';

/** The messages per field of a bad query (a 400 from a validator), or undefined for any other error. */
export function fieldErrorsOf(error: unknown): FieldErrors | undefined {
  return error instanceof HttpError && error.status === 400 ? error.options.errors : undefined;
}

/**
 * A page's query, validated: its values, or, when a value is bad, the messages per field for the
 * form to show beside each one (no values). Any other failure is thrown on.
 */
export async function checkQuery<P extends Params>(
  validate: QueryValidator<P>,
  query: unknown,
): Promise<{ values: ParamValues<P>; errors?: undefined } | { values?: undefined; errors: FieldErrors }> {
  try {
    return { values: await validate(query as Record<string, unknown>) };
  } catch (error) {
    const errors = fieldErrorsOf(error);
    if (!errors) throw error;
    return { errors };
  }
}

/**
 * The page's values, or undefined once `redraw` has answered a bad query: the page again, 400, with
 * the form filled in and each message beside its field.
 */
export async function validateOrRedraw<P extends Params>(
  validate: QueryValidator<P>,
  query: unknown,
  redraw: (errors: FieldErrors) => Promise<void>,
): Promise<ParamValues<P> | undefined> {
  const checked = await checkQuery(validate, query);
  if (checked.errors) {
    await redraw(checked.errors);
    return undefined;
  }
  return checked.values;
}
