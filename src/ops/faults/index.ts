// The operations of fault rules (src/faults/).
// src/ops/registry.ts joins these lists.
import {
  clearFaults,
  clearInboxFaults,
  faultEvents,
  inboxTimeline,
  listFaults,
  listInboxFaults,
  setFaults,
  setInboxFaults,
} from './faults.ts';

export const faultOps = [setFaults, listFaults, clearFaults, faultEvents, setInboxFaults, listInboxFaults, clearInboxFaults, inboxTimeline];
