// The one list of operations. The HTTP router, /v1/openapi.json, GET /v1 and the MCP tool list all come from it.
// Each folder of src/ops/ is one capability's API surface and exports its lists; the order here is the order of
// routes, tools and the OpenAPI document.

import { agentOps, agentToolOps, rehearsalOps, simulateOps } from './agent/index.ts';
import { aiOps } from './ai/index.ts';
import { accountOps, oauthOps, teamOps } from './auth/index.ts';
import { checkOps } from './checks/index.ts';
import { consoleOps } from './console/index.ts';
import { domainOps } from './domains/index.ts';
import { eventOps, webhookOps } from './events/index.ts';
import { faultOps } from './faults/index.ts';
import { inboxOps, messageOps } from './inboxes/index.ts';
import { labelRuleOps } from './labels/index.ts';
import type { Operation } from './op.ts';
import { outboundOps } from './outbound/index.ts';
import { calendarExecOps, calendarOps, gmailDraftOps, gmailOps } from './providers/index.ts';
import { renderOps } from './render/index.ts';
import { runOps } from './runs/index.ts';
import { searchOps } from './search/index.ts';
import { systemOps } from './system/index.ts';
import { threadOps } from './threads/index.ts';
import { workspaceExecOps, workspaceMonitorOps, workspaceOps, workspaceTaskOps, workspaceTodayOps } from './workspace/index.ts';

export const OPERATIONS: readonly Operation[] = [
  ...systemOps,
  ...inboxOps,
  ...messageOps,
  ...checkOps,
  ...renderOps,
  ...outboundOps,
  ...labelRuleOps,
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
  ...faultOps,
];
