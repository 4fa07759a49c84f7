// The operations of accounts, keys, teams and OAuth (src/auth/).
// src/ops/registry.ts joins these lists.
export { accountOps } from './account.ts';
export { oauthOps } from './oauth.ts';
export { teamOps } from './team.ts';
