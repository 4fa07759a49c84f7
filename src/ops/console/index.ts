// The operations of the browser console's aggregates (src/console/).
// src/ops/registry.ts joins these lists.
export { consoleOps } from './aggregates.ts';
