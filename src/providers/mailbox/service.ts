// The mailbox capability (CONTRACT §15) as one service: which mailbox a tool acts on (no account and no accountId →
// the local mailbox, inboxd's own inboxes; `local` selects it explicitly; otherwise a connected IMAP or Gmail account,
// ProviderAccounts.pick), connecting and forgetting accounts, their settings, and the reads, triage, digest and
// drafts of the svc_gmail_* tools. Built once by the composition root with narrow dependencies.

import type { Kysely } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { WorkspaceService } from '../../workspace/service.ts';
import { notConnected, type ProviderAccountRow, type ProviderAccounts } from '../accounts.ts';
import { redacting } from '../redact.ts';
import { digestOf, triageMailbox } from '../triage.ts';
import { type ConnectInput, connectMailbox } from './connect.ts';
import { type GmailEndpoints, GmailMailbox, type GmailSecret } from './gmail.ts';
import { type ImapConfig, ImapMailbox, type ImapSecret } from './imap.ts';
import { LocalMailbox, type LocalMailboxDeps } from './local.ts';
import { LocalMailboxRepo } from './local-repo.ts';
import { type MailboxSettings, MailboxSettingsRepo } from './settings.ts';
import type { DraftRequest, ListQuery, MailboxProvider } from './types.ts';

export interface MailboxDeps {
  db: Kysely<Database>;
  now: () => number;
  providers: ProviderAccounts;
  gmail: GmailEndpoints;
  /** inboxd's own public URL: its host is trusted in verification links the triage finds. */
  baseUrl: () => string;
  /** What the local mailbox reads through (its own reads come from `db`). */
  local: Omit<LocalMailboxDeps, 'repo' | 'drafts' | 'now'>;
  /** The workspace: its policy, the action log and (for the local mailbox) its drafts. */
  workspace: Pick<WorkspaceService, 'policy' | 'logAction' | 'storeDraft'>;
}

/** What a draft request names besides the draft itself. */
export type MailboxDraftRequest = Omit<DraftRequest, 'to' | 'cc'> & {
  accountId?: string | undefined;
  to?: string[] | undefined;
  cc?: string[] | undefined;
};

/** A connected account works on the team's real mailbox, which a key scoped to some inboxes' labels must not read. */
function requireUnscoped(p: Principal): void {
  if (p.scope.labelPrefix !== null)
    throw new AppError(
      'forbidden',
      `this key is scoped to labels starting with "${p.scope.labelPrefix}" and sees only those inboxes: use the local mailbox (accountId "local" or none), or an unscoped key for a connected account`,
    );
}

export class MailboxService {
  private readonly d: MailboxDeps;
  private readonly settingsRepo: MailboxSettingsRepo;
  private readonly localDeps: LocalMailboxDeps;

  constructor(d: MailboxDeps) {
    this.d = d;
    this.settingsRepo = new MailboxSettingsRepo(d.db);
    this.localDeps = { ...d.local, repo: new LocalMailboxRepo(d.db), drafts: d.workspace, now: d.now };
  }

  /** The team's connected mailbox accounts. */
  accounts(p: Principal): Promise<ProviderAccountRow[]> {
    return this.d.providers.list(p.teamId, 'mailbox');
  }

  /** Checks the credentials against the server, then stores the account (sealed). Nothing is stored on any failure. */
  connect(p: Principal, i: ConnectInput): Promise<ProviderAccountRow> {
    return connectMailbox({ providers: this.d.providers, now: this.d.now, gmail: this.d.gmail }, p, i);
  }

  /** Forgets the account, its sealed credentials and its settings. */
  async disconnect(p: Principal, accountId: string): Promise<void> {
    await this.d.providers.remove(p.teamId, 'mailbox', accountId);
    await this.settingsRepo.drop(p.teamId, accountId);
  }

  async settings(p: Principal, asked: string | undefined) {
    const accountId = await this.resolveAccountId(p, asked);
    return { accountId, ...(await this.settingsRepo.get(p.teamId, accountId)) };
  }

  /** Fields left out keep their value. */
  async setSettings(p: Principal, asked: string | undefined, patch: Partial<MailboxSettings>) {
    const accountId = await this.resolveAccountId(p, asked);
    return { accountId, ...(await this.settingsRepo.put(p.teamId, accountId, patch, p.keyId, this.d.now())) };
  }

  listThreads(p: Principal, accountId: string | undefined, q: ListQuery) {
    return this.use(p, accountId, 'svc_gmail_list_threads', async (m) => ({
      accountId: m.accountId,
      provider: m.kind,
      ...(await m.listThreads(q)),
    }));
  }

  readThread(p: Principal, accountId: string | undefined, threadId: string, maxMessages: number) {
    return this.use(p, accountId, 'svc_gmail_read_thread', async (m) => ({
      accountId: m.accountId,
      provider: m.kind,
      ...(await m.readThread(threadId, maxMessages)),
    }));
  }

  /** The newest threads classified, with counts per category; the mailbox's triage rules decide first. */
  triage(p: Principal, accountId: string | undefined, o: { folder?: string | undefined; query?: string | undefined; limit: number }) {
    return this.use(p, accountId, 'svc_gmail_triage', async (m) => {
      const items = await this.triageOf(p, m, o);
      const counts: Record<string, number> = {};
      for (const t of items) counts[t.category] = (counts[t.category] ?? 0) + 1;
      return { accountId: m.accountId, provider: m.kind, items, counts };
    });
  }

  /** The threads with activity since `since` (default: the settings' digest window), triaged and grouped. */
  digest(
    p: Principal,
    accountId: string | undefined,
    o: { since?: string | undefined; folder?: string | undefined; limit: number; top: number },
  ) {
    return this.use(p, accountId, 'svc_gmail_digest', async (m) => {
      const settings = await this.settingsRepo.get(p.teamId, m.accountId);
      const now = this.d.now();
      const since = o.since ? Date.parse(o.since) : now - settings.digestWindowHours * 3600_000;
      if (since > now)
        throw new AppError('validation_failed', 'since is in the future', { errors: [{ path: 'since', message: 'in the future' }] });
      const items = await this.triageOf(p, m, { folder: o.folder, limit: o.limit, since });
      return {
        accountId: m.accountId,
        provider: m.kind,
        since: new Date(since).toISOString(),
        until: new Date(now).toISOString(),
        timezone: settings.timezone,
        total: items.length,
        groups: digestOf(items, o.top),
      };
    });
  }

  /**
   * svc_workspace_execute_gmail_draft: a draft (never a send) in the mailbox, with the settings' signature, logged as
   * a workspace action of type draft; allowed in every policy mode.
   */
  createDraft(p: Principal, req: MailboxDraftRequest) {
    return this.use(p, req.accountId, 'svc_workspace_execute_gmail_draft', async (m) => {
      const settings = await this.settingsRepo.get(p.teamId, m.accountId);
      const sig = settings.signature ? `\n\n-- \n${settings.signature}` : '';
      const d = await m.createDraft({
        threadId: req.threadId,
        to: req.to ?? [],
        cc: req.cc ?? [],
        subject: req.subject,
        text: req.text + sig,
        html: req.html,
        inReplyTo: req.inReplyTo,
      });
      const policy = await this.d.workspace.policy(p);
      const a = await this.d.workspace.logAction(p, {
        type: 'draft',
        threadId: d.threadId ? d.threadId.slice(0, 512) : null,
        draftId: d.draftId,
        note: `${m.kind} draft in ${m.accountId === 'local' ? 'the local mailbox' : `${m.address} (${m.accountId})`}: ${d.location}`,
        reasons: ['svc_workspace_execute_gmail_draft: drafts only, nothing sent'],
      });
      return { ...d, accountId: m.accountId, provider: m.kind, mode: policy.mode, actionId: a.id };
    });
  }

  /** "local" or the id of the account the call names (checked: it exists, and a scoped key may not use it). */
  private async resolveAccountId(p: Principal, accountId: string | undefined): Promise<string> {
    if (accountId === 'local') return 'local';
    const row = await this.d.providers.pick(p.teamId, 'mailbox', accountId);
    if (!row) return 'local';
    this.adapterFor(p, row); // refuses a scoped key
    return row.id;
  }

  /** The mailbox's triage: its settings' rules, and inboxd's own host trusted in verification links. */
  private async triageOf(
    p: Principal,
    m: MailboxProvider,
    o: { folder?: string | undefined; query?: string | undefined; limit: number; since?: number | undefined },
  ) {
    const settings = await this.settingsRepo.get(p.teamId, m.accountId);
    return triageMailbox(m, settings.triageRules, [new URL(this.d.baseUrl()).hostname], o);
  }

  private adapterFor(p: Principal, row: ProviderAccountRow): MailboxProvider {
    requireUnscoped(p);
    const { providers, now } = this.d;
    if (row.provider === 'imap') {
      const o = providers.open<ImapConfig, ImapSecret>(row);
      return new ImapMailbox(row.id, o.config, o.secret, now);
    }
    if (row.provider === 'gmail') {
      const o = providers.open<{ address: string }, GmailSecret>(row);
      return new GmailMailbox(row.id, o.config.address, o.secret, this.d.gmail, now, async (secret) => {
        await providers.save({
          teamId: row.team_id,
          kind: 'mailbox',
          provider: 'gmail',
          address: row.address,
          config: o.config,
          secret: { ...secret },
        });
      });
    }
    throw new AppError('internal', `mailbox account ${row.id} has an unknown provider ${row.provider}`);
  }

  /** The mailbox a tool call names; a named account must exist (`what` says which tool needed it). */
  private async open(p: Principal, accountId: string | undefined, what: string): Promise<MailboxProvider> {
    const { providers } = this.d;
    if (accountId === 'local') return new LocalMailbox(this.localDeps, p);
    if (accountId !== undefined && !(await providers.list(p.teamId, 'mailbox')).length) throw notConnected('mailbox', what);
    const row = await providers.pick(p.teamId, 'mailbox', accountId);
    if (!row) return new LocalMailbox(this.localDeps, p);
    return this.adapterFor(p, row);
  }

  /** Runs `fn` on the mailbox and closes it; the account's status records whether the server answered. */
  private async use<T>(p: Principal, accountId: string | undefined, what: string, fn: (m: MailboxProvider) => Promise<T>): Promise<T> {
    const m = await this.open(p, accountId, what);
    try {
      const out = await redacting(m.secrets?.() ?? [], () => fn(m));
      if (m.kind !== 'local') await this.d.providers.mark(m.accountId, { ok: true });
      return out;
    } catch (e) {
      if (m.kind !== 'local' && e instanceof AppError && e.code === 'unavailable')
        await this.d.providers.mark(m.accountId, { ok: false, error: e.detail });
      throw e;
    } finally {
      await m.close().catch(() => undefined);
    }
  }
}
