// Mail for the workspace tests: raw messages with the headers the safety rules look at, stored through the real
// ingest path of a running test server.
import type { TestServer } from './server.ts';

export interface MailSpec {
  from: string;
  fromName?: string;
  to: string;
  subject: string;
  text: string;
  date?: string;
  headers?: Record<string, string>;
  messageId?: string;
}

export function rawMail(m: MailSpec): Buffer {
  const lines = [
    `From: ${m.fromName ? `"${m.fromName}" ` : ''}<${m.from}>`,
    `To: <${m.to}>`,
    `Subject: ${m.subject}`,
    `Date: ${new Date(m.date ?? '2026-11-20T10:00:00Z').toUTCString()}`,
    `Message-ID: <${m.messageId ?? `${Math.random().toString(36).slice(2)}@test`}>`,
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    m.text,
  ];
  return Buffer.from(lines.join('\r\n'));
}

/** Stores the mail as if received over SMTP; returns its message id. */
export async function deliver(s: TestServer, m: MailSpec): Promise<string> {
  const [d] = await s.server.parts.ingest.accept({ raw: rawMail(m), rcpts: [m.to], mailFrom: m.from, source: 'smtp' });
  return d!.messageId;
}

export async function newInbox(s: TestServer, body: Record<string, unknown> = {}): Promise<{ inboxId: string; address: string }> {
  const r = await s.api('/v1/inboxes', { method: 'POST', json: body });
  if (r.status !== 201) throw new Error(`inbox create: ${r.status} ${await r.text()}`);
  return (await r.json()) as { inboxId: string; address: string };
}

export async function mintKey(s: TestServer, body: Record<string, unknown>): Promise<string> {
  const r = await s.api('/v1/team/keys', { method: 'POST', json: body });
  if (r.status !== 201) throw new Error(`key mint: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { key: string }).key;
}
