// The IMAP system flags a message keeps (migration 023 `message_rows.flags`, a bit set). `\Seen` is the read state the
// REST answers show as `seen`; `\Recent` is never stored (RFC 3501 §2.3.2: a session's own notion, always off here).

export const FLAG_BITS = {
  '\\Seen': 1,
  '\\Deleted': 2,
  '\\Flagged': 4,
  '\\Answered': 8,
  '\\Draft': 16,
} as const;

export type SystemFlag = keyof typeof FLAG_BITS;
export const SEEN = FLAG_BITS['\\Seen'];
export const DELETED = FLAG_BITS['\\Deleted'];

/** The flag names of a bit set, in a fixed order. */
export function flagNames(bits: number): SystemFlag[] {
  return (Object.keys(FLAG_BITS) as SystemFlag[]).filter((f) => (bits & FLAG_BITS[f]) !== 0);
}

/** The bit of a flag name (case-insensitive, RFC 3501 §2.3.2), or null for a keyword or an unknown flag. */
export function flagBit(name: string): number | null {
  const lower = name.toLowerCase();
  for (const [f, bit] of Object.entries(FLAG_BITS)) if (f.toLowerCase() === lower) return bit;
  return null;
}
