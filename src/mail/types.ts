// The parsed form of one message: produced once at ingest (src/mail/parse.ts), stored, and read by
// extraction and the API without parsing the raw bytes again.

export interface MailAddress {
  name: string;
  address: string;
}

export interface ParsedAttachment {
  /** Sanitised file name for display; never used as a path. */
  filename: string | null;
  contentType: string;
  disposition: 'attachment' | 'inline';
  contentId: string | null;
  size: number;
  content: Buffer;
}

export interface ParsedMessage {
  messageId: string | null;
  subject: string;
  from: MailAddress | null;
  to: MailAddress[];
  cc: MailAddress[];
  replyTo: MailAddress[];
  date: Date | null;
  inReplyTo: string | null;
  references: string[];
  /** Header lines in order, names lower-cased, values decoded to text. */
  headers: Array<[name: string, value: string]>;
  text: string | null;
  html: string | null;
  attachments: ParsedAttachment[];
}
