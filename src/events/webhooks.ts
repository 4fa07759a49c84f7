// Inbound provider webhooks: each provider's request is unwrapped to the raw message and its envelope, which then
// take the same ingest path as SMTP. Only providers that forward the whole MIME message are supported.
import crypto from 'node:crypto';
import busboy from 'busboy';
import { AppError } from '../errors.ts';
import { describeJsonShapeProblem, jsonShapeProblem } from '../lib/json.ts';

export const PROVIDERS = ['raw', 'mailgun', 'sendgrid', 'postmark', 'ses'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(p: string): p is Provider {
  return (PROVIDERS as readonly string[]).includes(p);
}

export interface InboundRequest {
  bytes: Buffer;
  contentType: string;
  header(name: string): string | undefined;
  /** raw only: envelope recipients given in the query. */
  to?: string | undefined;
}

export type Inbound =
  | {
      kind: 'message';
      raw: Buffer;
      envelopeTo: string[] | null;
      mailFrom: string | null;
      /** A signed request's single-use token: the caller records it so that the request cannot be replayed. */
      replay?: { token: string; expiresAt: number };
    }
  /** Not mail (an SNS subscription handshake): answered 200, nothing stored. */
  | { kind: 'notice'; detail: string; fields: Record<string, string>; needsOperator?: boolean };

export interface ProviderKeys {
  mailgunSigningKey?: string | undefined;
  /** Milliseconds since the epoch, for the freshness of signatures. */
  now: number;
}

/** A signed webhook's timestamp may be this far in the past or the future (Mailgun: seconds since the epoch). */
export const SIGNATURE_MAX_SKEW_MS = 5 * 60_000;

export async function readInbound(provider: Provider, req: InboundRequest, keys: ProviderKeys): Promise<Inbound> {
  switch (provider) {
    case 'raw':
      return readRaw(req);
    case 'mailgun':
      return readMailgun(req, keys);
    case 'sendgrid':
      return readSendgrid(req);
    case 'postmark':
      return readPostmark(req);
    case 'ses':
      return readSes(req);
  }
}

const invalid = (detail: string, path = '(body)') => new AppError('validation_failed', detail, { errors: [{ path, message: detail }] });

function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function splitAddresses(list: string | undefined | null): string[] {
  return (list ?? '')
    .split(/[,;\s]+/)
    .map((a) => a.trim().replace(/^<|>$/g, ''))
    .filter((a) => a.includes('@'));
}

function readRaw(req: InboundRequest): Inbound {
  const type = mediaType(req.contentType);
  if (type !== '' && type !== 'message/rfc822' && type !== 'text/plain' && type !== 'application/octet-stream') {
    throw new AppError('unsupported_media_type', `send the message itself with "Content-Type: message/rfc822" (got ${type})`);
  }
  const to = req.to === undefined ? null : splitAddresses(req.to);
  if (to !== null && to.length === 0) throw invalid('to: give one or more e-mail addresses, comma-separated', 'to');
  return { kind: 'message', raw: req.bytes, envelopeTo: to, mailFrom: null };
}

/**
 * Mailgun routes with forward() to a URL ending in "mime": `body-mime`, `recipient`, `sender`. Mailgun's documented
 * signature is hex HMAC-SHA256 of timestamp + token with the webhook signing key; it does not cover the body, so a
 * request is only trusted while its timestamp is fresh, and its token only once (the caller records it).
 */
async function readMailgun(req: InboundRequest, keys: ProviderKeys): Promise<Inbound> {
  const form = await readForm(req);
  const signingKey = keys.mailgunSigningKey;
  if (signingKey === undefined) throw new AppError('not_configured', 'mailgun: INBOXD_MAILGUN_SIGNING_KEY is not set');
  const timestamp = text(form, 'timestamp');
  const token = text(form, 'token');
  const signature = text(form, 'signature');
  if (!timestamp || !token || !signature)
    throw new AppError('unauthorized', 'mailgun: the request is not signed (the timestamp, token and signature fields are required)');
  const want = crypto
    .createHmac('sha256', signingKey)
    .update(timestamp + token)
    .digest();
  const got = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (got.length !== want.length || !crypto.timingSafeEqual(got, want))
    throw new AppError('unauthorized', 'mailgun: the signature does not match INBOXD_MAILGUN_SIGNING_KEY');
  const signedAt = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) * 1000 : Number.NaN;
  if (!(Math.abs(keys.now - signedAt) <= SIGNATURE_MAX_SKEW_MS))
    throw new AppError(
      'unauthorized',
      `mailgun: the signature timestamp ${timestamp} is more than ${SIGNATURE_MAX_SKEW_MS / 60_000} minutes from this server's clock (a replayed request, or a clock that is off)`,
    );
  if (token.length > 200) throw new AppError('unauthorized', "mailgun: the token is longer than Mailgun's");
  const raw = form.get('body-mime');
  if (!raw)
    throw invalid(
      'mailgun: no body-mime field; forward the route to a URL ending in "mime" so Mailgun posts the whole message',
      'body-mime',
    );
  const envelopeTo = splitAddresses(text(form, 'recipient'));
  return {
    kind: 'message',
    raw,
    envelopeTo: envelopeTo.length ? envelopeTo : null,
    mailFrom: text(form, 'sender') || null,
    replay: { token, expiresAt: signedAt + SIGNATURE_MAX_SKEW_MS + 60_000 },
  };
}

/** SendGrid Inbound Parse with "POST the raw, full MIME message": `email`, plus `envelope` JSON. */
async function readSendgrid(req: InboundRequest): Promise<Inbound> {
  const form = await readForm(req);
  const raw = form.get('email');
  if (!raw) throw invalid('sendgrid: no email field; tick "POST the raw, full MIME message" in the Inbound Parse settings', 'email');
  let envelopeTo: string[] | null = null;
  let mailFrom: string | null = null;
  const env = text(form, 'envelope');
  if (env) {
    const e = (parseJson(env, 'sendgrid: the envelope field', 'envelope') ?? {}) as { to?: unknown; from?: unknown };
    if (Array.isArray(e.to)) envelopeTo = e.to.filter((t): t is string => typeof t === 'string');
    if (typeof e.from === 'string') mailFrom = e.from;
  }
  return { kind: 'message', raw, envelopeTo: envelopeTo?.length ? envelopeTo : null, mailFrom };
}

/** Postmark inbound JSON with "Include raw email content in JSON payload": `RawEmail`, `OriginalRecipient`. */
function readPostmark(req: InboundRequest): Inbound {
  const body = json(req, 'postmark') as { RawEmail?: unknown; OriginalRecipient?: unknown; FromFull?: { Email?: unknown } };
  if (typeof body.RawEmail !== 'string' || body.RawEmail === '') {
    throw invalid('postmark: no RawEmail; enable "Include raw email content in JSON payload" on the inbound server', 'RawEmail');
  }
  const envelopeTo = typeof body.OriginalRecipient === 'string' ? splitAddresses(body.OriginalRecipient) : [];
  return { kind: 'message', raw: Buffer.from(body.RawEmail, 'utf8'), envelopeTo: envelopeTo.length ? envelopeTo : null, mailFrom: null };
}

/** Amazon SES receipt rule with an SNS action: an SNS notification whose Message carries the mail as `content`. */
function readSes(req: InboundRequest): Inbound {
  const sns = json(req, 'ses') as { Type?: unknown; Message?: unknown; TopicArn?: unknown; SubscribeURL?: unknown; MessageId?: unknown };
  const type = typeof sns.Type === 'string' ? sns.Type : req.header('x-amz-sns-message-type');
  const topic = typeof sns.TopicArn === 'string' ? sns.TopicArn : '';
  if (type === 'SubscriptionConfirmation') {
    if (typeof sns.SubscribeURL !== 'string') throw invalid('ses: SubscriptionConfirmation without SubscribeURL', 'SubscribeURL');
    return {
      kind: 'notice',
      detail: 'SNS subscription confirmation received; open its SubscribeURL (in the server log) to confirm the subscription',
      fields: { topicArn: topic, subscribeUrl: sns.SubscribeURL },
      needsOperator: true,
    };
  }
  if (type === 'UnsubscribeConfirmation')
    return { kind: 'notice', detail: 'SNS unsubscribe confirmation received', fields: { topicArn: topic } };
  if (type !== 'Notification') throw invalid(`ses: expected an SNS Notification, got Type ${JSON.stringify(type ?? null)}`, 'Type');
  if (typeof sns.Message !== 'string') throw invalid('ses: the SNS notification has no Message', 'Message');
  type SesMessage = {
    notificationType?: unknown;
    content?: unknown;
    mail?: { source?: unknown; destination?: unknown };
    receipt?: { recipients?: unknown; action?: { encoding?: unknown } };
  };
  const msg = (parseJson(sns.Message, 'ses: the SNS Message', 'Message') ?? {}) as SesMessage;
  if (msg.notificationType !== 'Received')
    return { kind: 'notice', detail: `SES ${String(msg.notificationType ?? 'unknown')} notification ignored`, fields: { topicArn: topic } };
  if (typeof msg.content !== 'string' || msg.content === '') {
    throw invalid(
      'ses: the notification carries no content; use an SNS action in the receipt rule (S3 actions send no message)',
      'Message.content',
    );
  }
  const encoding = String(msg.receipt?.action?.encoding ?? 'BASE64');
  const raw = /^utf-?8$/i.test(encoding) ? Buffer.from(msg.content, 'utf8') : Buffer.from(msg.content, 'base64');
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : []);
  const envelopeTo = strings(msg.receipt?.recipients).length ? strings(msg.receipt?.recipients) : strings(msg.mail?.destination);
  return {
    kind: 'message',
    raw,
    envelopeTo: envelopeTo.length ? envelopeTo : null,
    mailFrom: typeof msg.mail?.source === 'string' ? msg.mail.source : null,
  };
}

function json(req: InboundRequest, provider: string): Record<string, unknown> {
  // SNS posts JSON as text/plain; accept any type whose body is a JSON object.
  const v = parseJson(req.bytes.toString('utf8'), `${provider}: the body`, '(body)');
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(`${provider}: the body must be a JSON object`);
  return v as Record<string, unknown>;
}

/**
 * JSON.parse after a cheap shape check: provider payloads are a few levels deep with a few hundred values (the
 * message itself is one long string), so deeper or bigger JSON is refused before it can stall the main thread.
 */
function parseJson(text: string, what: string, path: string): unknown {
  const shape = jsonShapeProblem(text, 32, 50_000);
  if (shape) throw invalid(`${what} is JSON ${describeJsonShapeProblem(shape)}; no provider sends that`, path);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw invalid(`${what} is not valid JSON: ${(e as Error).message}`, path);
  }
}

const text = (form: Map<string, Buffer>, name: string): string => form.get(name)?.toString('utf8') ?? '';

/**
 * A multipart/form-data or urlencoded body, field name → bytes (first value wins). Fields are decoded as latin1 by
 * default, which maps bytes to characters one to one, so re-encoding gives back exactly the bytes that were sent.
 */
function readForm(req: InboundRequest): Promise<Map<string, Buffer>> {
  const type = mediaType(req.contentType);
  if (type !== 'multipart/form-data' && type !== 'application/x-www-form-urlencoded') {
    return Promise.reject(
      new AppError(
        'unsupported_media_type',
        `send the webhook as multipart/form-data or application/x-www-form-urlencoded (got ${type || 'no Content-Type'})`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const out = new Map<string, Buffer>();
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': req.contentType },
        defCharset: 'latin1',
        limits: { fieldSize: req.bytes.length, fields: 500, parts: 1000 },
      });
    } catch (e) {
      return reject(invalid(`the form cannot be read: ${(e as Error).message}`));
    }
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) return;
      // A part that declared a charset was decoded with it; characters above U+00FF can only come from UTF-8.
      if (!out.has(name)) out.set(name, Buffer.from(value, /[^\x00-\xff]/.test(value) ? 'utf8' : 'latin1'));
    });
    bb.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (!out.has(name)) out.set(name, Buffer.concat(chunks));
      });
    });
    bb.on('error', (e: Error) => reject(invalid(`the form cannot be read: ${e.message}`)));
    bb.on('close', () => resolve(out));
    bb.end(req.bytes);
  });
}

const KNOWN_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'received',
  'return-path',
  'delivered-to',
  'x-original-to',
  'reply-to',
  'sender',
  'content-type',
]);

/**
 * Whether the bytes start like an RFC 5322 message: a header section of well-formed fields (continuation lines
 * allowed; an mbox "From " line tolerated) that names at least one common message header.
 */
export function looksLikeMessage(raw: Buffer): boolean {
  const head = raw.subarray(0, 256 * 1024).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  let lines = (end >= 0 ? head.slice(0, end) : head).split(/\r?\n/);
  if (end < 0 && raw.length > head.length) lines = lines.slice(0, -1);
  if (lines[0]?.startsWith('From ')) lines = lines.slice(1);
  if (lines.length === 0 || lines[0] === '') return false;
  let known = false;
  for (const [i, line] of lines.entries()) {
    if (line === '' && i === lines.length - 1) continue;
    if (/^[ \t]/.test(line)) {
      if (i === 0) return false;
      continue;
    }
    const m = /^([\x21-\x39\x3b-\x7e]+)[ \t]*:/.exec(line);
    if (!m) return false;
    if (KNOWN_HEADERS.has(m[1]!.toLowerCase())) known = true;
  }
  return known;
}

/** Addresses in the To and Cc headers (used when the provider gives no envelope recipients). */
export function headerRecipients(raw: Buffer): string[] {
  const head = raw.subarray(0, 256 * 1024).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const unfolded = (end >= 0 ? head.slice(0, end) : head).replace(/\r?\n[ \t]+/g, ' ');
  const out: string[] = [];
  for (const line of unfolded.split(/\r?\n/)) {
    const m = /^(to|cc)[ \t]*:(.*)$/i.exec(line);
    if (!m) continue;
    // Quoted display names and comments may contain anything, "@" included.
    const value = m[2]!.replace(/"(?:[^"\\]|\\.)*"/g, ' ').replace(/\([^()]*\)/g, ' ');
    for (const a of value.match(/[^\s<>",;:()[\]]+@[^\s<>",;:()[\]]+/g) ?? []) out.push(a);
  }
  return out;
}
