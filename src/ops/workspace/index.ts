// The operations of the workspace: drafts, policy, rules, reminders, actions, today, monitors, execute-reply (src/workspace/).
// src/ops/registry.ts joins these lists.
export { workspaceOps } from './core.ts';
export { workspaceExecOps } from './exec.ts';
export { workspaceMonitorOps } from './monitors.ts';
export { workspaceTaskOps } from './tasks.ts';
export { workspaceTodayOps } from './today.ts';
