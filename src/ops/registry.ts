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
import { searchOps } from './search.ts';

export const OPERATIONS: readonly Operation[] = [
  ...systemOps,
  ...inboxOps,
  ...messageOps,
  ...searchOps,
  ...agentOps,
  ...simulateOps,
  ...rehearsalOps,
  ...agentToolOps,
  ...runOps,
  ...eventOps,
  ...webhookOps,
  ...aiOps,
  ...teamOps,
  ...oauthOps,
  ...accountOps,
];
