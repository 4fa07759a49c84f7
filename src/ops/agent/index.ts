// The operations of verify, open, extraction, simulated mail, the rehearsal page and the agent tools (src/agent/).
// src/ops/registry.ts joins these lists.
export { agentOps } from './agent.ts';
export { rehearsalOps } from './rehearsal.ts';
export { simulateOps } from './simulate.ts';
export { agentToolOps } from './tools.ts';
