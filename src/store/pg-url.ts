// --database checked before anything connects (config time): PostgreSQL URLs only, never with a password in them.
export interface PgTarget {
  /** postgres://user@host:port/db as given, password-free (checked by parsePgUrl). */
  url: string;
  /** host:port, for messages. */
  where: string;
  database: string;
  user: string | undefined;
}

/** Why a --database value is unusable, or the parsed target. The message never repeats a password. */
export function parsePgUrl(raw: string): PgTarget | string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'is not a URL; expected postgres://USER@HOST:PORT/DATABASE';
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    return `has scheme ${u.protocol.replace(/:$/, '')}; expected postgres://USER@HOST:PORT/DATABASE`;
  if (u.password !== '')
    return 'contains a password, which is refused (a URL shows up in process lists, shell history and logs); remove it and put the password in INBOXD_DATABASE_PASSWORD or PGPASSWORD';
  if (!u.hostname) return 'names no host; expected postgres://USER@HOST:PORT/DATABASE';
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) return 'names no database; expected postgres://USER@HOST:PORT/DATABASE';
  return {
    url: raw,
    where: `${u.hostname}:${u.port || '5432'}`,
    database,
    user: u.username ? decodeURIComponent(u.username) : undefined,
  };
}
