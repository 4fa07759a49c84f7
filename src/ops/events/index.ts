// The operations of SSE streams, callback logs and inbound provider webhooks (src/events/).
// src/ops/registry.ts joins these lists.
export { eventOps } from './events.ts';
export { webhookOps } from './webhooks.ts';
