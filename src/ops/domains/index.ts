// The operations of custom domains (src/domains/).
// src/ops/registry.ts joins these lists.
export { domainOps } from './domains.ts';
