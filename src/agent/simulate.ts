// Simulated incoming mail: composed as real MIME and delivered through ingest, exactly like SMTP mail.
import { AppError } from '../errors.ts';
import type { Ingest } from '../ingest/ingest.ts';
import { composeSimulated, type SimulateRequest } from '../mail/simulate.ts';
import type { InboxRow } from '../store/inboxes.ts';

export interface SimulatedDelivery {
  messageId: string;
  expected: { otp: string | null; primaryLink: string | null };
  from: string;
  subject: string;
  size: number;
}

export async function simulateInto(
  deps: { ingest: Ingest; maxMessageBytes: number },
  inbox: InboxRow,
  req: Omit<SimulateRequest, 'to'>,
): Promise<SimulatedDelivery> {
  if (req.scenario === 'custom' && (!req.subject || (req.text === undefined && req.html === undefined))) {
    throw new AppError('validation_failed', 'the custom scenario needs a subject and a text or html body', {
      errors: [{ path: 'subject', message: 'required for custom' }],
    });
  }
  const mail = await composeSimulated({ ...req, to: inbox.address });
  if (mail.raw.length > deps.maxMessageBytes) {
    throw new AppError(
      'payload_too_large',
      `the simulated message is ${mail.raw.length} bytes; the limit is ${deps.maxMessageBytes} (--max-message-bytes)`,
    );
  }
  const [d] = await deps.ingest.accept({ raw: mail.raw, rcpts: [inbox.address], mailFrom: null, source: 'simulate' });
  return { messageId: d!.messageId, expected: mail.expected, from: mail.from, subject: mail.subject, size: mail.raw.length };
}
