// The operations of PNG renderings of mail (src/render/).
// src/ops/registry.ts joins these lists.
export { renderOps } from './render.ts';
