// The operations of health, discovery and the OpenAPI document.
// src/ops/registry.ts joins these lists.
export { systemOps } from './health-and-discovery.ts';
