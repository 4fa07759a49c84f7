// The operations of search (src/search/).
// src/ops/registry.ts joins these lists.
export { searchOps } from './search.ts';
