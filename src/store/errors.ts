// Engine-neutral reading of database errors. A unique (or primary-key) violation is SQLite's
// SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY and PostgreSQL's SQLSTATE 23505; callers turn it into a 409.

interface DbError {
  code?: unknown;
  message?: unknown;
  /** PostgreSQL: the index that was violated. */
  constraint?: unknown;
  /** PostgreSQL: the table. */
  table?: unknown;
  /** PostgreSQL: `Key (col, …)=(…) already exists.` */
  detail?: unknown;
}

/**
 * Whether `e` is a unique violation; with `column` (`table.column`) only one on that column. SQLite names the columns
 * in its message; PostgreSQL names the table and, in the detail, the key's columns.
 */
export function isUniqueViolation(e: unknown, column?: string): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const err = e as DbError;
  const [table, col] = column ? column.split('.') : [];
  if (err.code === '23505') {
    if (!column) return true;
    if (err.table !== table) return false;
    const cols = typeof err.detail === 'string' ? /^Key \(([^)]*)\)=/.exec(err.detail)?.[1] : undefined;
    if (cols !== undefined) return cols.split(',').some((c) => c.trim().replace(/^"|"$/g, '') === col);
    return typeof err.constraint === 'string' && err.constraint.includes(col!);
  }
  if (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    if (!column) return true;
    return typeof err.message === 'string' && new RegExp(`\\b${column.replace('.', '\\.')}\\b`).test(err.message);
  }
  return false;
}
