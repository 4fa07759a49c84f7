// The operations of inboxes, their messages and the long-poll wait (src/inboxes/).
// src/ops/registry.ts joins these lists.
export { inboxOps } from './inboxes.ts';
export { messageOps } from './messages.ts';
