import { defineParams } from '../filters/define';
import { queryValidator } from '../filters/validate';
import { HttpError } from '../http/errors';

// Ids in paths follow the same rule as ids in filters; one that breaks it names nothing, so it is a 404.
const validate = queryValidator(defineParams({ id: { type: 'bigint', label: 'ID', description: 'A record id.' } }));

export async function pathId(raw: string, what: string): Promise<string> {
  const values = await validate({ id: raw }).catch(() => ({ id: undefined }));
  if (!values.id) throw new HttpError(404, `There is no ${what} with ID ${raw}.`);
  return values.id;
}
