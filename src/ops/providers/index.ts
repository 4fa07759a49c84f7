// The operations of mailbox and calendar tools over local inboxes and connected accounts (src/providers/).
// src/ops/registry.ts joins these lists.

export { calendarOps } from './calendar.ts';
export { calendarExecOps } from './calendar-exec.ts';
export { gmailOps } from './mailbox.ts';
export { gmailDraftOps } from './mailbox-draft.ts';
