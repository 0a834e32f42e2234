import crypto from 'node:crypto';
import pg from 'pg';
import { createSupervisor } from './supervisors';
import { createToken } from './tokens';

// The embedded demo's credentials, made anew at every start and printed, so a newcomer is never stuck.

const DEMO_TOKEN_NAME = 'embedded-demo';

export interface DemoCredentials {
  /** The embedded demo's API token, issued anew at each start. */
  token: string;
  /** The embedded demo's supervisor sign-in, with a password made anew at each start. */
  supervisor: { username: string; password: string };
}

/** Sets a fresh password on the demo supervisor (creating it the first time). */
async function issueDemoSupervisor(url: string): Promise<{ username: string; password: string }> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const password = crypto.randomBytes(12).toString('base64url');
    await createSupervisor(client, { username: 'demo', password });
    return { username: 'demo', password };
  } finally {
    await client.end();
  }
}

/** Replaces the previous demo token with a new one. */
async function issueDemoToken(url: string): Promise<string> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query('DELETE FROM access.api_tokens WHERE name = $1', [DEMO_TOKEN_NAME]);
    return (await createToken(client, { name: DEMO_TOKEN_NAME })).token;
  } finally {
    await client.end();
  }
}

/** A new demo API token (replacing the previous one), then a new password for the demo supervisor, in the database at `url`. */
export async function issueDemoCredentials(url: string): Promise<DemoCredentials> {
  const token = await issueDemoToken(url);
  const supervisor = await issueDemoSupervisor(url);
  return { token, supervisor };
}
