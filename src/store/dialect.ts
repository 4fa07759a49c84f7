// Which SQL engine a Kysely handle speaks (CONTRACT §8: the dialect is a setting). Queries stay in the query builder;
// where the engines truly differ (full-text search, upserts that ignore, time arithmetic) code asks this once.
import { type Kysely, PostgresAdapter } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(db: Kysely<unknown> | Kysely<never>): Dialect {
  return (db as Kysely<unknown>).getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
