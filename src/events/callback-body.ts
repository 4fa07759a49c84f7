// The JSON body of a `message.received` callback (CONTRACT §5). Its fields are the API's message summary's
// (src/ops/views.ts messageSummary) under the same names; sender and code follow the same rules because both
// answers read them through senderOf / verificationOf (src/mail/summary.ts).

import { senderOf, verificationOf } from '../mail/summary.ts';
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
      from: senderOf(m),
      subject: m.subject,
      receivedAt: iso(m.received_at),
      verification: verificationOf(m),
    },
  };
  return JSON.stringify(body);
}
