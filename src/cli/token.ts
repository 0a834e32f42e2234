// npm run token -- create --name NAME [--3pl COMPANY] [--expires-days N]
// npm run token -- revoke NAME_OR_ID   (or revoke --name NAME, as create names it)
// npm run token -- list
// Works on DATABASE_URL, or on the embedded server when it is not set.
import { commandLine, runCommand, unknownCommand, withDatabaseClient } from './run';
import { createToken, listTokens, revokeToken } from '../auth/tokens';

const usage = `usage:
  npm run token -- create --name NAME [--3pl COMPANY] [--expires-days N]
  npm run token -- revoke NAME_OR_ID   (or: revoke --name NAME)
  npm run token -- list`;

async function main(): Promise<void> {
  const { positionals, values } = commandLine(usage, {
    name: { type: 'string' },
    '3pl': { type: 'string' },
    'expires-days': { type: 'string' },
  } as const);
  const [command, positional] = positionals;
  // revoke takes the name as create gives it (--name) or as a word; both at once must agree.
  if (command === 'revoke' && positional && values.name && positional !== values.name)
    throw new Error(`revoke takes one token: "${positional}" or --name "${values.name}"\n${usage}`);
  const target = command === 'revoke' ? (positional ?? values.name) : positional;
  if (!['create', 'revoke', 'list'].includes(command)) throw unknownCommand(command, usage);
  if (command === 'create' && !values.name) throw new Error(`create needs --name\n${usage}`);
  if (command === 'revoke' && !target) throw new Error(`revoke needs a token name or id\n${usage}`);
  const days = values['expires-days'];
  if (days !== undefined && (!/^\d+$/.test(days) || Number(days) < 1))
    throw new Error('--expires-days must be a whole number of at least 1');

  await withDatabaseClient(async (client) => {
    if (command === 'create') {
      const { id, token } = await createToken(client, {
        name: values.name!,
        company: values['3pl'],
        expiresInDays: days ? Number(days) : undefined,
      });
      console.log(
        `Token ${id} "${values.name}"${values['3pl'] ? ` for 3PL "${values['3pl']}"` : ''}. It is shown this once; keep it secret:`,
      );
      console.log(token);
    } else if (command === 'revoke') {
      const revoked = await revokeToken(client, target);
      console.log(
        revoked ? `Revoked ${revoked} token(s) named or numbered "${target}".` : `No live token is named or numbered "${target}".`,
      );
      if (!revoked) process.exitCode = 1;
    } else {
      const day = (at: Date | null) => (at ? at.toISOString().slice(0, 16).replace('T', ' ') : '');
      const rows = (await listTokens(client)).map((t) => ({
        id: Number(t.id),
        name: t.name,
        '3PL': t.company ?? '(all)',
        'created (UTC)': day(t.created_at),
        'last used': day(t.last_used_at),
        expires: day(t.expires_at),
        revoked: day(t.revoked_at),
      }));
      if (rows.length) console.table(rows);
      else console.log('No tokens yet: npm run token -- create --name NAME');
    }
  });
}

runCommand(main);
