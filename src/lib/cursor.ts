// Opaque list cursors (CONTRACT §3: lists take `cursor` and answer `nextCursor`).
import { AppError } from '../errors.ts';

export function encodeCursor(v: unknown): string {
  return Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');
}

export function decodeCursor<T>(cursor: string | undefined, check: (v: unknown) => v is T): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (check(v)) return v;
  } catch {
    // fall through
  }
  throw new AppError('validation_failed', 'cursor is not one this server issued; pass nextCursor from the previous page unchanged', {
    errors: [{ path: 'cursor', message: 'invalid cursor' }],
  });
}

/**
 * One page of a list fetched with `limit + 1` rows: the extra row only tells that more exist, and the last row
 * shown becomes the cursor.
 */
export function pageOf<R, T>(
  rows: R[],
  limit: number,
  view: (r: R) => T,
  cursorOf: (r: R) => unknown,
): { items: T[]; nextCursor: string | null } {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { items: shown.map(view), nextCursor: rows.length > limit && last !== undefined ? encodeCursor(cursorOf(last)) : null };
}
