// A reply to a received message, as a send request: who it goes to (Reply-To, else From; with replyAll also To and
// Cc, never the inbox itself), "Re:" once, and In-Reply-To / References continuing the thread. Shared by the reply
// route (src/ops/outbound/send.ts) and the workspace's execute-reply (src/outbound/workspace-mailer.ts).
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { AppError } from '../errors.ts';
import { isAddress, type OutAttachment, replyRecipients, replyReferences, replySubject } from '../mail/compose.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRow } from '../store/messages.ts';
import type { SendRequest } from './service.ts';

/** The addresses of a stored header value (Reply-To), leaving out what is not a plain address. */
function headerAddresses(m: MessageRow, name: string): string[] {
  const headers = JSON.parse(m.headers_json) as Array<[string, string]>;
  const value = headers.find(([n]) => n.toLowerCase() === name)?.[1];
  if (!value) return [];
  const flat = (list: ReturnType<typeof addressparser>): string[] =>
    list.flatMap((a) => ('group' in a && a.group ? flat(a.group) : 'address' in a && a.address ? [a.address] : []));
  return flat(addressparser(value)).filter(isAddress);
}

export function buildReply(
  inbox: InboxRow,
  original: MessageRow,
  body: { text: string | undefined; html: string | undefined; replyAll: boolean; attachments: OutAttachment[] },
): Omit<SendRequest, 'keyId'> {
  if (original.direction === 'outbound')
    throw new AppError(
      'validation_failed',
      `${original.id} is a message this inbox sent, not one it received; reply to a received message, or use POST /v1/inboxes/${inbox.id}/send to write again`,
      { errors: [{ path: 'messageId', message: 'is an outbound (sent) message' }] },
    );
  const addrs = (json: string) => (JSON.parse(json) as Array<{ address: string }>).map((a) => a.address).filter(isAddress);
  const from = original.from_address && isAddress(original.from_address) ? original.from_address : null;
  const { to, cc } = replyRecipients(
    { from, replyTo: headerAddresses(original, 'reply-to'), to: addrs(original.to_json), cc: addrs(original.cc_json) },
    inbox.address,
    body.replyAll,
  );
  if (to.length + cc.length === 0)
    throw new AppError(
      'validation_failed',
      `${original.id} has no sender address to reply to (From and Reply-To are missing or not addresses)`,
      {
        errors: [{ path: 'messageId', message: 'has no address to reply to' }],
      },
    );
  const references = replyReferences({
    references: JSON.parse(original.references_json) as string[],
    inReplyTo: original.in_reply_to,
    messageId: original.message_id_header,
  });
  return {
    inbox,
    to: to.map((address) => ({ name: '', address })),
    cc: cc.map((address) => ({ name: '', address })),
    bcc: [],
    replyTo: [],
    subject: replySubject(original.subject),
    text: body.text,
    html: body.html,
    attachments: body.attachments,
    inReplyTo: original.message_id_header ? references[references.length - 1]! : null,
    references,
  };
}
