// The operations of send and reply (src/outbound/).
// src/ops/registry.ts joins these lists.
export { outboundOps } from './send.ts';
