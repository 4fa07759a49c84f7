// Turns an Authorization header into a principal. Shared by the HTTP and MCP edges, so both accept exactly the
// same keys and tokens.
import type { KeyAuth } from './keys.ts';
import type { Principal } from './principal.ts';

export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; reason: 'missing' | 'malformed' | 'invalid' };

export async function authenticateHeader(
  services: { keyAuth: Pick<KeyAuth, 'authenticate'> },
  header: string | undefined,
): Promise<AuthOutcome> {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing' };
  const m = /^Bearer[ \t]+([^\s]{1,512})[ \t]*$/i.exec(header);
  if (!m) return { ok: false, reason: 'malformed' };
  const principal = await services.keyAuth.authenticate(m[1]!);
  return principal ? { ok: true, principal } : { ok: false, reason: 'invalid' };
}

export function authFailureDetail(reason: 'missing' | 'malformed' | 'invalid'): string {
  switch (reason) {
    case 'missing':
      return 'no API key: send "Authorization: Bearer <key>" (the admin key is printed at first start and kept in <data-dir>/admin.key)';
    case 'malformed':
      return 'the Authorization header must be "Bearer <key>"';
    case 'invalid':
      return 'the API key or access token is unknown, revoked or expired';
  }
}
