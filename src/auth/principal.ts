// Who is calling, and what they may touch. Every operation runs with one of these (or none, for open ones).

export interface Scope {
  /** The key may only touch inboxes whose label starts with this; null = every inbox of the team. */
  labelPrefix: string | null;
  /** No mutation at all: create, delete, send, reply, simulate, execute. */
  readOnly: boolean;
}

export type Role = 'admin' | 'member';

export interface Principal {
  teamId: string;
  keyId: string;
  role: Role;
  scope: Scope;
  via: 'key' | 'token';
  clientId: string | null;
}

export const UNSCOPED: Scope = { labelPrefix: null, readOnly: false };

/** Only an unscoped admin key manages keys, clients, domains, the policy and the model probe (CONTRACT §6). */
export function isFullAdmin(p: Principal): boolean {
  return p.role === 'admin' && p.scope.labelPrefix === null && !p.scope.readOnly;
}

export function labelInScope(scope: Scope, label: string | null): boolean {
  if (scope.labelPrefix === null) return true;
  return label?.startsWith(scope.labelPrefix) === true;
}
