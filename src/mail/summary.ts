// How a stored message's sender and code read in every answer that shows them (the API's message summaries in
// src/ops/views.ts, verify results, callback bodies in src/events/callback-body.ts): one rule, pure, over the row's
// columns.

/** The sender: null when the message has no From address. */
export function senderOf(r: { from_address: string | null; from_name: string | null }): { name: string; address: string } | null {
  return r.from_address === null ? null : { name: r.from_name ?? '', address: r.from_address };
}

/** The code and link: a sent message is never the inbox's code (its own copy shows none; the recipients' copies do). */
export function verificationOf(r: { direction: string; otp: string | null; primary_link: string | null }): {
  otp: string | null;
  primaryLink: string | null;
} {
  return r.direction === 'outbound' ? { otp: null, primaryLink: null } : { otp: r.otp, primaryLink: r.primary_link };
}
