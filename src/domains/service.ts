// Custom mail domains (CONTRACT §10): add (with a DKIM key pair), verify over DNS, serve, sign, delete. The rules
// live here; queries run through DomainRepo (repo.ts), stored keys are sealed by keys.ts, records judged in records.ts.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Clock } from '../lib/clock.ts';
import { newId, randomBase62 } from '../lib/ids.ts';
import { SealedError, type Sealer } from '../lib/sealed.ts';
import type { Logger } from '../log.ts';
import { isUniqueViolation } from '../store/errors.ts';
import type { MessageRepo } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import { keyProblem, sealStoredKeys } from './keys.ts';
import { normalizeDomain } from './names.ts';
import {
  DnsLookup,
  type DomainRecordView,
  type ExpectedRecord,
  expectedRecords,
  judge,
  lookUp,
  type Purpose,
  type RecordCheck,
  recordViews,
} from './records.ts';
import { DomainRepo, type DomainRow } from './repo.ts';
import type { ServedDomains } from './served.ts';
import type { DomainSettings } from './settings.ts';

export type { DomainRecordView } from './records.ts';
export type { DomainRow } from './repo.ts';
export { type DomainSettings, relayHostOf } from './settings.ts';

/** What nodemailer's `dkim` option (and mailauth's signer) take. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

const generateKeyPair = promisify(crypto.generateKeyPair);

export class DomainService {
  private readonly repo: DomainRepo;
  private readonly served: ServedDomains;
  private readonly inboxes: InboxService;
  private readonly messages: MessageRepo;
  private readonly writer: IngestWriter;
  private readonly sealer: Sealer;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly settings: DomainSettings;
  /** Domains whose key could not be opened, so the warning is logged once per domain, not per message. */
  private readonly warned = new Set<string>();

  constructor(d: {
    db: Kysely<Database>;
    served: ServedDomains;
    inboxes: InboxService;
    messages: MessageRepo;
    writer: IngestWriter;
    sealer: Sealer;
    clock: Clock;
    log: Logger;
    settings: DomainSettings;
  }) {
    this.repo = new DomainRepo(d.db);
    this.served = d.served;
    this.inboxes = d.inboxes;
    this.messages = d.messages;
    this.writer = d.writer;
    this.sealer = d.sealer;
    this.clock = d.clock;
    this.log = d.log;
    this.settings = d.settings;
  }

  /** One domain's state in the store: its team (null for none) when verified, else false (ServedDomains.lookup). */
  async verifiedOwner(name: string): Promise<string | null | false> {
    const r = await this.repo.stateOf(name.toLowerCase());
    return r?.status === 'verified' ? r.team_id : false;
  }

  /** The verified custom domains in the store (what ServedDomains.sync reads on a shared database). */
  async verified(): Promise<Array<{ name: string; teamId: string | null }>> {
    const rows = await this.repo.verifiedNames();
    return rows.map((r) => ({ name: r.name, teamId: r.team_id }));
  }

  /** At start: verified domains are served again; keys stored plainly are sealed once a secret key is set. */
  async load(): Promise<{ verified: number; total: number }> {
    const rows = await this.repo.all();
    for (const r of rows) if (r.status === 'verified') this.served.addCustom(r.name, r.team_id);
    await sealStoredKeys({ repo: this.repo, sealer: this.sealer, log: this.log }, rows);
    return { verified: rows.filter((r) => r.status === 'verified').length, total: rows.length };
  }

  async create(p: Principal, rawName: string): Promise<DomainRow> {
    const name = normalizeDomain(rawName);
    if (this.served.isConfigured(name))
      throw new AppError('conflict', `${name} is already served by this inboxd (--domain); inboxes can be created at it as it is`);
    const existing = await this.repo.byName(name);
    if (existing) throw this.taken(p, existing);
    const { publicKey, privateKey } = await generateKeyPair('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const now = this.clock.now();
    const id = newId('dom');
    const row: DomainRow = {
      id,
      team_id: p.teamId,
      name,
      status: 'pending',
      verification_token: randomBase62(32),
      dkim_selector: `inboxd${new Date(now).toISOString().slice(0, 7).replace('-', '')}`,
      dkim_public_key: publicKey.toString('base64'),
      dkim_private_key: this.sealer.seal(privateKey, id),
      signing_ready: 0,
      checks_json: null,
      created_at: now,
      created_by_key: p.keyId,
      verified_at: null,
      checked_at: null,
    };
    try {
      await this.repo.insert(row);
    } catch (e) {
      if (!isUniqueViolation(e, 'domains.name')) throw e;
      const other = await this.repo.byName(name);
      throw other ? this.taken(p, other) : e;
    }
    this.log.info('custom domain added', { domainId: id, domain: name, teamId: p.teamId });
    return row;
  }

  async list(p: Principal, limit: number, before?: { c: number; i: string }): Promise<DomainRow[]> {
    return this.repo.page(p.teamId, limit, before);
  }

  /** The team's domain, else 404 (another team's domain is not revealed). */
  async get(p: Principal, id: string): Promise<DomainRow> {
    const row = await this.repo.ofTeam(p.teamId, id);
    if (!row) throw new AppError('not_found', `no domain ${id} in this team (GET /v1/domains lists yours)`);
    return row;
  }

  async verify(p: Principal, id: string): Promise<DomainRow> {
    const row = await this.get(p, id);
    const dns = new DnsLookup({ server: this.settings.dnsServer, timeoutMs: this.settings.dnsTimeoutMs });
    const expected = this.expected(row);
    const ctx = { mxHost: this.settings.mxHost(), spfHost: this.settings.spfHost() };
    const checks = await Promise.all(expected.map(async (r) => [r.purpose, judge(r, await lookUp(dns, r), ctx)] as const));
    const by = Object.fromEntries(checks) as Record<Purpose, RecordCheck>;
    // A failed lookup is no answer: it changes nothing (a DNS outage must not stop serving a verified domain).
    const decided = (...ps: Purpose[]) => ps.every((q) => by[q].error === null);
    const ok = (...ps: Purpose[]) => ps.every((q) => by[q].status === 'found');
    const status = decided('verification', 'mx') ? (ok('verification', 'mx') ? 'verified' : 'pending') : row.status;
    const signing =
      status !== 'verified' ? 0 : decided('dkim', 'spf') ? (ok('dkim', 'spf') ? 1 : 0) : row.status === 'verified' ? row.signing_ready : 0;
    const now = this.clock.now();
    const updated = await this.repo.saveCheck(row.id, {
      status,
      signing_ready: signing,
      checks_json: JSON.stringify(by),
      checked_at: now,
      verified_at: status === 'verified' ? (row.status === 'verified' ? row.verified_at : now) : null,
    });
    if (!updated) throw new AppError('not_found', `domain ${id} was deleted while it was being verified`);
    if (status === 'verified') this.served.addCustom(row.name, row.team_id);
    else this.served.removeCustom(row.name);
    if (status === 'verified') await this.evictOthers(row);
    if (status !== row.status)
      this.log.info(status === 'verified' ? 'custom domain verified; now served' : 'custom domain failed verification; no longer served', {
        domainId: row.id,
        domain: row.name,
      });
    return this.get(p, id);
  }

  /**
   * Inboxes of other teams at a domain this team has just verified (possible only from `--accept-any-domain`, made
   * before the verification) are removed with their mail: from now on the domain's mail, addresses and DKIM key are
   * the verifying team's alone. Run at every verify that finds the domain verified, so one created in a race goes too.
   */
  private async evictOthers(row: DomainRow): Promise<void> {
    if (row.team_id === null) return;
    let removed = 0;
    for (;;) {
      const batch = await this.repo.inboxesOfOthersAt(row.name, row.team_id, 100);
      if (batch.length === 0) break;
      for (const inbox of batch) {
        await this.inboxes.delete(inbox);
        removed++;
      }
    }
    if (removed > 0)
      this.log.warn('inboxes of other teams at a newly verified custom domain removed (they existed through --accept-any-domain)', {
        domainId: row.id,
        domain: row.name,
        inboxes: removed,
      });
  }

  /** Removes the domain and stops serving it, then removes its inboxes (with their mail) and its unclaimed mail. */
  async delete(p: Principal, id: string): Promise<{ row: DomainRow; inboxes: number; messages: number }> {
    const row = await this.get(p, id);
    // The row goes first: a verify running at the same time then finds nothing to update and cannot serve it again.
    await this.repo.remove(row.id);
    this.served.removeCustom(row.name);
    let inboxes = 0;
    let messages = 0;
    for (;;) {
      // The owner's inboxes only: another team's inboxes at the name can exist only from --accept-any-domain, and
      // are theirs to delete.
      const batch = await this.repo.inboxesOfTeamAt(row.name, row.team_id, 100);
      if (batch.length === 0) break;
      for (const inbox of batch) {
        messages += await this.messages.count(inbox.id);
        await this.inboxes.delete(inbox);
        inboxes++;
      }
    }
    for (;;) {
      const ids = await this.repo.unclaimedMessageIds(row.name, 500);
      if (ids.length === 0) break;
      const shas = await this.messages.blobsOf({ messageIds: ids });
      await this.writer.run(() => this.messages.deleteByIds(ids));
      await this.writer.collect(shas);
      messages += ids.length;
    }
    this.log.info('custom domain deleted', { domainId: row.id, domain: row.name, inboxes, messages });
    return { row, inboxes, messages };
  }

  /**
   * The signing key for mail of team `teamId` from `domain`, or null: only a verified domain of that team whose DKIM
   * and SPF records matched at the last verify signs (a signature DNS cannot confirm would hurt delivery more than no signature).
   */
  async dkimFor(domain: string, teamId: string): Promise<DkimKey | null> {
    const name = domain.trim().toLowerCase().replace(/\.$/, '');
    const row = await this.repo.signing(name);
    // Only the sending team's own key: mail of another team's inbox at the name is never signed with it.
    if (!row || (row.team_id !== null && row.team_id !== teamId)) return null;
    try {
      return { domainName: row.name, keySelector: row.dkim_selector, privateKey: this.sealer.open(row.dkim_private_key, row.id) };
    } catch (e) {
      if (!(e instanceof SealedError)) throw e;
      if (!this.warned.has(row.id)) {
        this.warned.add(row.id);
        this.log.warn('DKIM key of a custom domain cannot be opened; its mail goes out unsigned', { domain: row.name, reason: e.message });
      }
      return null;
    }
  }

  /**
   * The DKIM key record of a custom domain at `<selector>._domainkey.<domain>`, or null: inboxd holds that key pair,
   * so the auth check (src/checks/auth/) verifies mail inboxd signed without asking DNS.
   */
  async dkimKeyRecord(name: string): Promise<string | null> {
    const n = name.trim().toLowerCase().replace(/\.$/, '');
    const at = n.indexOf('._domainkey.');
    if (at <= 0) return null;
    const row = await this.repo.byName(n.slice(at + '._domainkey.'.length));
    if (!row || row.dkim_selector !== n.slice(0, at)) return null;
    return `v=DKIM1; k=rsa; p=${row.dkim_public_key}`;
  }

  /** The records to publish, with the last verify's result for each. */
  records(row: DomainRow): DomainRecordView[] {
    return recordViews(this.expected(row), row.checks_json);
  }

  /** Why this domain does not sign, or null when it does. */
  signingNote(row: DomainRow): string | null {
    if (row.status !== 'verified') return 'the domain is not verified';
    if (!row.signing_ready) return 'the DKIM and SPF records did not both match at the last verify; publish them and verify again';
    return keyProblem(this.sealer, row);
  }

  private expected(row: DomainRow): ExpectedRecord[] {
    return expectedRecords({
      name: row.name,
      token: row.verification_token,
      selector: row.dkim_selector,
      publicKey: row.dkim_public_key,
      mxHost: this.settings.mxHost(),
      spfHost: this.settings.spfHost(),
    });
  }

  private taken(p: Principal, existing: DomainRow): AppError {
    return new AppError(
      'conflict',
      existing.team_id === p.teamId
        ? `${existing.name} is already added as ${existing.id}; verify or delete that one`
        : `${existing.name} is held by another team; it can be added only after they delete it`,
    );
  }
}
