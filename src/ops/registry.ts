// The one list of operations. The HTTP router, /v1/openapi.json, GET /v1 and the MCP tool list all come from it.
import type { Operation } from './op.ts';
import { inboxOps } from './inboxes.ts';
import { messageOps } from './messages.ts';
import { systemOps } from './system.ts';
import { accountOps } from './account.ts';
import { oauthOps } from './oauth.ts';
import { teamOps } from './team.ts';
import { agentOps } from './agent.ts';
import { simulateOps } from './simulate.ts';
import { rehearsalOps } from './rehearsal.ts';
import { agentToolOps } from './agent-tools.ts';
import { eventOps } from './events.ts';
import { webhookOps } from './webhooks.ts';
import { runOps } from './runs.ts';
import { aiOps } from './ai.ts';
import { domainOps } from './domains.ts';
import { consoleOps } from './console.ts';
import { workspaceOps } from './workspace.ts';
import { workspaceTaskOps } from './workspace-tasks.ts';
import { workspaceExecOps } from './workspace-exec.ts';
import { workspaceTodayOps } from './workspace-today.ts';
import { workspaceMonitorOps } from './workspace-monitors.ts';
import { outboundOps } from './outbound.ts';
import { threadOps } from './threads.ts';
import { searchOps } from './search.ts';
import { gmailOps } from './gmail.ts';
import { gmailDraftOps } from './gmail-draft.ts';
import { calendarOps } from './calendar.ts';
import { calendarExecOps } from './calendar-exec.ts';

export const OPERATIONS: readonly Operation[] = [
  ...systemOps,
  ...inboxOps,
  ...messageOps,
  ...outboundOps,
  ...threadOps,
  ...searchOps,
  ...agentOps,
  ...simulateOps,
  ...rehearsalOps,
  ...agentToolOps,
  ...runOps,
  ...eventOps,
  ...webhookOps,
  ...aiOps,
  ...workspaceOps,
  ...workspaceTaskOps,
  ...workspaceExecOps,
  ...gmailDraftOps,
  ...calendarExecOps,
  ...workspaceTodayOps,
  ...workspaceMonitorOps,
  ...teamOps,
  ...oauthOps,
  ...accountOps,
  ...domainOps,
  ...consoleOps,
  ...gmailOps,
  ...calendarOps,
];
