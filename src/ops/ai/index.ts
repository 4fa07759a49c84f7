// The operations of structured extraction and model status (src/ai/).
// src/ops/registry.ts joins these lists.
export { aiOps } from './extract.ts';
