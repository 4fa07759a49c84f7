// The workspace's one way to send (src/workspace/mailer.ts): a reply through the same path as POST
// /v1/inboxes/:id/reply — the caller's scope decides which inbox it may use, the outbox makes it durable.
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { MessageRepo } from '../store/messages.ts';
import type { WorkspaceMailer } from '../workspace/mailer.ts';
import { buildReply } from './reply.ts';
import type { OutboundService } from './service.ts';

export function workspaceMailer(d: {
  inboxes: InboxService;
  messages: MessageRepo;
  outbound: OutboundService;
  /** `--smtp-auth required`: local recipients only inside the key's scope, as for POST …/reply. */
  scopedDelivery: boolean;
}): WorkspaceMailer {
  return {
    async reply(p: Principal, req) {
      const inbox = await d.inboxes.get(p, req.inboxId);
      const original = await d.messages.get(inbox.id, req.messageId);
      if (!original) throw new AppError('not_found', `no message ${req.messageId} in inbox ${inbox.id}`);
      const r = await d.outbound.send({
        ...buildReply(inbox, original, { text: req.text, html: req.html, replyAll: false, attachments: [] }),
        keyId: p.keyId,
        autoSubmitted: req.autoSubmitted ?? false,
        ...(d.scopedDelivery ? { mayNotDeliverTo: (address: string) => d.inboxes.refusesSender(p, address) } : {}),
      });
      return { messageId: r.messageId, deliveries: r.recipients.map((x) => ({ rcpt: x.address, state: x.state })) };
    },
  };
}
