// The outbound capability's queries on tables it does not own (the outbox's own queries are in src/outbound/outbox.ts).
// A send asks, inside its ingest transaction, which of the inboxes its local copies landed in belong to the sending
// team, so the copies it describes name only those (src/outbound/service.ts applies the key's label scope to them).
import type { Transaction } from 'kysely';
import type { InboxRow } from '../store/inboxes.ts';
import type { Database } from '../store/schema.ts';

/** The inboxes among `inboxIds` that belong to `teamId`, with their labels; no query when `inboxIds` is empty. */
export async function teamInboxLabels(
  trx: Transaction<Database>,
  teamId: string,
  inboxIds: string[],
): Promise<Array<Pick<InboxRow, 'id' | 'label'>>> {
  if (inboxIds.length === 0) return [];
  return trx.selectFrom('inboxes').select(['id', 'label']).where('id', 'in', inboxIds).where('team_id', '=', teamId).execute();
}
