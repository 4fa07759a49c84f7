// The operations of send, reply and release (src/outbound/).
// src/ops/registry.ts joins these lists.
import { releaseMessage } from './release.ts';
import { outboundOps as sendOps } from './send.ts';

export const outboundOps = [...sendOps, releaseMessage];
