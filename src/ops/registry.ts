// The one list of operations. The HTTP router, /v1/openapi.json, GET /v1 and the MCP tool list all come from it.
// Each folder of src/ops/ is one capability's API surface and exports its lists; the order here is the order of
// routes, tools and the OpenAPI document.
import type { Operation } from './op.ts';
import { inboxOps, messageOps } from './inboxes/index.ts';
import { systemOps } from './system/index.ts';
import { accountOps, oauthOps, teamOps } from './auth/index.ts';
import { agentOps, simulateOps, rehearsalOps, agentToolOps } from './agent/index.ts';
import { eventOps, webhookOps } from './events/index.ts';
import { runOps } from './runs/index.ts';
import { aiOps } from './ai/index.ts';
import { domainOps } from './domains/index.ts';
import { consoleOps } from './console/index.ts';
import { workspaceOps, workspaceTaskOps, workspaceExecOps, workspaceTodayOps, workspaceMonitorOps } from './workspace/index.ts';
import { outboundOps } from './outbound/index.ts';
import { threadOps } from './threads/index.ts';
import { searchOps } from './search/index.ts';
import { gmailOps, gmailDraftOps, calendarOps, calendarExecOps } from './providers/index.ts';

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
