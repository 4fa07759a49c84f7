// The operations of message checks (src/checks/).
// src/ops/registry.ts joins these lists.
export { checkOps } from './checks.ts';
