// The start banner's ready psql command for the service's primary database. A password is never
// printed: the embedded server's is named by its file, a DATABASE_URL's is left to the one who set it.

/** A word for a POSIX shell: as it is when plain, else in single quotes. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The embedded server's superuser password file (written at its first start, beside its data). */
export const embeddedPasswordFile = (dataDir: string) => `${dataDir}.password`;

/** `psql` for the embedded server: user postgres on loopback, its password read from its file. */
export function embeddedPsql(port: number, dataDir: string, database: string): string {
  return `PGPASSWORD="$(cat ${shellWord(embeddedPasswordFile(dataDir))})" psql -h 127.0.0.1 -p ${port} -U postgres ${shellWord(database)}`;
}

/** `psql` for a DATABASE_URL: host, port, user and database from it; its password, if any, not shown. */
export function urlPsql(url: string): string {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username) || undefined;
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || undefined;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || undefined;
  const words = ['psql'];
  if (host) words.push('-h', shellWord(host));
  words.push('-p', parsed.port || '5432');
  if (user) words.push('-U', shellWord(user));
  if (database) words.push(shellWord(database));
  const ssl = parsed.searchParams.get('sslmode');
  const line = ssl ? `PGSSLMODE=${shellWord(ssl)} ${words.join(' ')}` : words.join(' ');
  return parsed.password ? `${line}   (asks for the password in DATABASE_URL, not shown here)` : line;
}
