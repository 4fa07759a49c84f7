// svc_diagnose_inbox's findings: why an inbox has not received the mail an agent expects, as concrete hints (a typo in
// the address, mail without a code, filters, the domains this server accepts mail for, an inbox about to expire).
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageSummaryRow } from '../store/messages.ts';

export interface Diagnosis {
  inbox: InboxRow;
  acceptsMailFor: string[];
  minutesLeft: number;
  /** The newest messages (at most 10), newest first. */
  messages: MessageSummaryRow[];
  hints: string[];
}

/** The domains this server accepts mail for, as ServedDomains lists and names them. */
export interface ServedNames {
  list(): string[];
  describe(): string;
}

export function diagnosis(inbox: InboxRow, messages: MessageSummaryRow[], now: number, served: ServedNames): Diagnosis {
  const minutesLeft = Math.max(0, Math.round((inbox.expires_at - now) / 60_000));
  const hints: string[] = [];
  if (messages.length === 0) {
    hints.push(
      `No mail has arrived. Make sure the form was submitted with exactly ${inbox.address} (check for typos and trailing spaces).`,
    );
    hints.push(
      `This server accepts mail only for ${served.describe()}; the sending service must be able to reach its SMTP port (or use svc_simulate_message to test).`,
    );
    hints.push('Some services send the mail only after an extra step in the browser (a captcha or a "send code" button).');
  } else {
    // A sent message is never the inbox's code (its summary shows none, src/ops/views.ts).
    const withCode = messages.filter((m) => m.direction !== 'outbound' && (m.otp || m.primary_link));
    if (withCode.length === 0)
      hints.push(
        'Mail arrived but none of it carries a code or verification link: read the newest with svc_get_raw_message; the code may be in an attachment or an image.',
      );
    else hints.push(`The newest message with a code or link is ${withCode[0]!.id} ("${withCode[0]!.subject}").`);
    hints.push('If you filter with subjectContains or expectFrom, check the subjects and senders listed here.');
  }
  if (minutesLeft < 5) hints.push(`The inbox expires in ${minutesLeft} minute(s); create a new one if the flow takes longer.`);
  return { inbox, acceptsMailFor: served.list(), minutesLeft, messages, hints };
}
