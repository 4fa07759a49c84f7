// Helpers for the extractor tests: build a ParsedMessage by hand or from raw MIME text.

import type { Extraction } from '../../src/mail/extract/index.ts';
import { extractVerification } from '../../src/mail/extract/index.ts';
import { parseMessage } from '../../src/mail/parse.ts';
import type { PresetId } from '../../src/mail/presets.ts';
import type { ParsedMessage } from '../../src/mail/types.ts';

export interface MsgSpec {
  from?: string;
  subject?: string;
  text?: string | null;
  html?: string | null;
  headers?: Array<[string, string]>;
  inReplyTo?: string | null;
}

export function msg(spec: MsgSpec): ParsedMessage {
  const from = spec.from ?? 'Example <no-reply@example.com>';
  const m = /^(.*?)\s*<([^>]+)>$/.exec(from);
  return {
    messageId: '<test@example.com>',
    subject: spec.subject ?? '',
    from: m ? { name: m[1]!.replace(/"/g, ''), address: m[2]! } : { name: '', address: from },
    to: [{ name: '', address: 'agent@inboxd.test' }],
    cc: [],
    replyTo: [],
    date: new Date('2026-04-14T10:30:00Z'),
    inReplyTo: spec.inReplyTo ?? null,
    references: [],
    headers: spec.headers ?? [],
    text: spec.text ?? null,
    html: spec.html ?? null,
    attachments: [],
  };
}

export function x(spec: MsgSpec, service?: PresetId): Extraction {
  return extractVerification(msg(spec), service ? { service } : {});
}

/** Parses raw MIME (LF line ends are fine) and extracts. */
export async function xRaw(raw: string, service?: PresetId): Promise<Extraction> {
  const parsed = await parseMessage(Buffer.from(raw.replace(/\r?\n/g, '\r\n'), 'utf8'));
  return extractVerification(parsed, service ? { service } : {});
}

/** A plain HTML e-mail layout around some body HTML. */
export function layout(body: string, footer = ''): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Mail</title><style>.a{color:#333}</style></head>
<body style="margin:0"><table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table width="600"><tr><td><img src="https://cdn.example.com/logo.png" width="120" alt="Example"></td></tr>
<tr><td style="padding:24px;font-size:16px">${body}</td></tr>
<tr><td style="font-size:12px;color:#888">${footer}</td></tr></table></td></tr></table></body></html>`;
}
