// A second team for tests of what one team may see or take of another's: no API creates teams yet, so its row and
// an admin key are written to the store as the key service would write them.
import { hashSecret } from '../../src/auth/secrets.ts';
import type { TestServer } from './server.ts';

/** The secret of an admin key of team `team_<name>` (created once; a second call returns the same key). */
export async function teamAdminKey(s: TestServer, name: string, opts: { keyId?: string } = {}): Promise<string> {
  const db = s.server.parts.store.db;
  const teamId = `team_${name}`;
  const secret = `ibx_${name.replace(/[^A-Za-z0-9]/g, '')}Admin`.padEnd(35, '0').slice(0, 35);
  await db
    .insertInto('teams')
    .values({ id: teamId, name, plan: 'self-hosted', created_at: Date.now(), billing_customer_id: null })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await db
    .insertInto('api_keys')
    .values({
      id: opts.keyId ?? `key_${name}`,
      team_id: teamId,
      label: `${name} admin`,
      role: 'admin',
      secret_hash: hashSecret(secret),
      secret_prefix: secret.slice(0, 8),
      scope_label_prefix: null,
      scope_read_only: 0,
      client_id: null,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return secret;
}
