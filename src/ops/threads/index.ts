// The operations of threads (src/threads/).
// src/ops/registry.ts joins these lists.
export { threadOps } from './threads.ts';
