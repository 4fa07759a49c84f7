// The operations of agent runs (src/runs/).
// src/ops/registry.ts joins these lists.
export { runOps } from './runs.ts';
