// The one way the workspace sends mail: a narrow interface the outbound feature implements (POST
// /v1/inboxes/:id/reply through its durable outbox, CONTRACT §9), built by src/outbound/workspace-mailer.ts and given
// to the workspace service by the composition root; every server has one.
import type { Principal } from '../auth/principal.ts';

export interface WorkspaceReply {
  inboxId: string;
  messageId: string;
  text: string;
  html?: string;
  /**
   * True when no person approved this reply (execute-reply under auto_send_safe / full_auto): the mailer should
   * mark it `Auto-Submitted: auto-replied` (RFC 3834) so other agents and autoresponders do not answer it.
   */
  autoSubmitted?: boolean;
}

export interface WorkspaceMailer {
  reply(p: Principal, req: WorkspaceReply): Promise<{ messageId: string; deliveries: Array<{ rcpt: string; state: string }> }>;
}
