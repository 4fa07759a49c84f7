// Provider accounts (CONTRACT §15): the mailboxes and calendars a team connected (IMAP/SMTP, Gmail API, CalDAV,
// Google Calendar). Shared by src/providers/mailbox/ and src/providers/calendar/. Credentials are sealed with
// INBOXD_SECRET_KEY, bound to the row id, and only ever opened here for an adapter; views never carry them.
import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import { SealedError, type Sealer } from '../lib/sealed.ts';
import type { Database } from '../store/schema.ts';

export type ProviderKind = 'mailbox' | 'calendar';

export interface ProviderAccountRow {
  id: string;
  team_id: string;
  kind: ProviderKind;
  /** mailbox: `imap` | `gmail`; calendar: `caldav` | `google`. */
  provider: string;
  /** What the account is known by: the mailbox address, the calendar principal or URL. */
  address: string;
  label: string | null;
  config_json: string;
  /** Sealed JSON of the credentials. */
  secret: string;
  status: 'connected' | 'error';
  last_error: string | null;
  last_sync_at: number | null;
  created_at: number;
  updated_at: number;
}

export type ProviderDatabase = Database & { provider_accounts: ProviderAccountRow };

/** What the API shows of an account: never the credentials. */
export interface AccountView {
  id: string;
  kind: ProviderKind;
  provider: string;
  address: string;
  label: string | null;
  status: 'connected' | 'error';
  lastError: string | null;
  lastSyncAt: string | null;
  createdAt: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function accountView(r: ProviderAccountRow): AccountView {
  return {
    id: r.id,
    kind: r.kind,
    provider: r.provider,
    address: r.address,
    label: r.label,
    status: r.status,
    lastError: r.last_error,
    lastSyncAt: iso(r.last_sync_at),
    createdAt: new Date(r.created_at).toISOString(),
  };
}

/** An account with its configuration and opened credentials, for an adapter (never for a view). */
export interface OpenedAccount<C = Record<string, unknown>, S = Record<string, unknown>> {
  row: ProviderAccountRow;
  config: C;
  secret: S;
}

const HOW_TO_CONNECT: Record<ProviderKind, string> = {
  mailbox: 'svc_gmail_connect (POST /v1/providers/mailbox/accounts) with IMAP + SMTP or Gmail API credentials',
  calendar: 'svc_calendar_connect (POST /v1/providers/calendar/accounts) with CalDAV or Google Calendar credentials',
};

/** The 501 a tool answers when it needs a remote account of `kind` and the team has none connected. */
export function notConnected(kind: ProviderKind, what: string): AppError {
  return new AppError(
    'not_configured',
    `${what} needs a connected ${kind} account and this team has none (CONTRACT §15). Connect one with ${HOW_TO_CONNECT[kind]}, then retry.`,
  );
}

export class ProviderAccounts {
  private readonly db: Kysely<ProviderDatabase>;
  private readonly sealer: Sealer;
  private readonly now: () => number;

  constructor(d: { db: Kysely<Database>; sealer: Sealer; now: () => number }) {
    this.db = d.db.withTables<{ provider_accounts: ProviderAccountRow }>();
    this.sealer = d.sealer;
    this.now = d.now;
  }

  /** Connecting stores credentials; without INBOXD_SECRET_KEY they would sit in the database in the clear: refused. */
  requireSealing(kind: ProviderKind): void {
    if (!this.sealer.enabled)
      throw new AppError(
        'not_configured',
        `connecting a ${kind} account stores its credentials, which inboxd only does encrypted: set INBOXD_SECRET_KEY (32 bytes, hex or base64, e.g. \`openssl rand -hex 32\`) in the server's environment, restart it, and connect again`,
      );
  }

  /**
   * Stores a checked account (the adapter has already logged in with these credentials). Connecting the same
   * provider + address again replaces its credentials and configuration and keeps its id.
   */
  async save(a: {
    teamId: string;
    kind: ProviderKind;
    provider: string;
    address: string;
    label?: string | null;
    config: Record<string, unknown>;
    secret: Record<string, unknown>;
  }): Promise<ProviderAccountRow> {
    this.requireSealing(a.kind);
    const now = this.now();
    const existing = await this.db
      .selectFrom('provider_accounts')
      .selectAll()
      .where('team_id', '=', a.teamId)
      .where('kind', '=', a.kind)
      .where('provider', '=', a.provider)
      .where('address', '=', a.address)
      .executeTakeFirst();
    const id = existing?.id ?? newId('pac');
    const values = {
      label: a.label ?? existing?.label ?? null,
      config_json: JSON.stringify(a.config),
      secret: this.sealer.seal(JSON.stringify(a.secret), id),
      status: 'connected' as const,
      last_error: null,
      last_sync_at: now,
      updated_at: now,
    };
    if (existing) {
      await this.db.updateTable('provider_accounts').set(values).where('id', '=', id).execute();
    } else {
      await this.db
        .insertInto('provider_accounts')
        .values({ id, team_id: a.teamId, kind: a.kind, provider: a.provider, address: a.address, created_at: now, ...values })
        .execute();
    }
    return (await this.row(a.teamId, a.kind, id)) as ProviderAccountRow;
  }

  list(teamId: string, kind: ProviderKind): Promise<ProviderAccountRow[]> {
    return this.db
      .selectFrom('provider_accounts')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('kind', '=', kind)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  private row(teamId: string, kind: ProviderKind, id: string): Promise<ProviderAccountRow | undefined> {
    return this.db
      .selectFrom('provider_accounts')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('kind', '=', kind)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** One account of the team by id (404 when it is another team's or gone). */
  async get(teamId: string, kind: ProviderKind, id: string): Promise<ProviderAccountRow> {
    const r = await this.row(teamId, kind, id);
    if (!r)
      throw new AppError(
        'not_found',
        `no ${kind} account ${id} in this team (list them with svc_${kind === 'mailbox' ? 'gmail' : 'calendar'}_list_accounts)`,
      );
    return r;
  }

  /**
   * The account a tool acts on: `id` when given; else the team's only one; null when it has none (the caller
   * falls back to the local adapter or answers notConnected); 400 when several exist and none was named.
   */
  async pick(teamId: string, kind: ProviderKind, id?: string | null): Promise<ProviderAccountRow | null> {
    if (id) return this.get(teamId, kind, id);
    const all = await this.list(teamId, kind);
    if (all.length === 0) return null;
    if (all.length > 1)
      throw new AppError(
        'validation_failed',
        `this team has ${all.length} ${kind} accounts (${all.map((a) => a.id).join(', ')}): say which with accountId`,
        { errors: [{ path: 'accountId', message: 'required when several accounts are connected' }] },
      );
    return all[0] as ProviderAccountRow;
  }

  /** Opens an account's configuration and credentials for its adapter. */
  open<C = Record<string, unknown>, S = Record<string, unknown>>(r: ProviderAccountRow): OpenedAccount<C, S> {
    let secret: S;
    try {
      secret = JSON.parse(this.sealer.open(r.secret, r.id)) as S;
    } catch (e) {
      if (e instanceof SealedError)
        throw new AppError(
          'not_configured',
          `the credentials of ${r.kind} account ${r.id} cannot be opened: ${e.message}. Start inboxd with the INBOXD_SECRET_KEY they were sealed with, or connect the account again`,
        );
      throw e;
    }
    return { row: r, config: JSON.parse(r.config_json) as C, secret };
  }

  /** Records the outcome of the last use of an account (shown by *_status and *_list_accounts). */
  async mark(id: string, outcome: { ok: true } | { ok: false; error: string }): Promise<void> {
    const now = this.now();
    await this.db
      .updateTable('provider_accounts')
      .set(
        outcome.ok
          ? { status: 'connected', last_error: null, last_sync_at: now, updated_at: now }
          : { status: 'error', last_error: outcome.error.slice(0, 500), updated_at: now },
      )
      .where('id', '=', id)
      .execute();
  }

  /** Forgets an account and its credentials. */
  async remove(teamId: string, kind: ProviderKind, id: string): Promise<void> {
    await this.get(teamId, kind, id);
    await this.db.deleteFrom('provider_accounts').where('team_id', '=', teamId).where('id', '=', id).execute();
  }
}
