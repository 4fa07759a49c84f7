// The JSON body of a `message.received` callback (CONTRACT §5). Its fields are the API's message summary's
// (src/ops/views.ts messageSummary) under the same names and with the same rules: no code or link on the copy of
// a sent message, `from` null when the message has no From address.
import type { CallbackInbox } from '../store/deliveries.ts';
import type { MessageSummaryRow } from '../store/messages.ts';

export interface CallbackBody {
  type: 'message.received';
  timestamp: string;
  data: {
    inboxId: string;
    address: string;
    label: string | null;
    messageId: string;
    from: { name: string; address: string } | null;
    subject: string;
    receivedAt: string;
    verification: { otp: string | null; primaryLink: string | null };
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export function callbackBody(inbox: CallbackInbox, m: MessageSummaryRow, at: number): string {
  const body: CallbackBody = {
    type: 'message.received',
    timestamp: iso(at),
    data: {
      inboxId: inbox.id,
      address: inbox.address,
      label: inbox.label,
      messageId: m.id,
      from: m.from_address === null ? null : { name: m.from_name ?? '', address: m.from_address },
      subject: m.subject,
      receivedAt: iso(m.received_at),
      verification: m.direction === 'outbound' ? { otp: null, primaryLink: null } : { otp: m.otp, primaryLink: m.primary_link },
    },
  };
  return JSON.stringify(body);
}
