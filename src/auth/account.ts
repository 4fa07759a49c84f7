// The caller's own account: its team and the team's keys, usage within the key's scope, and the billing entry points
// (a customer at the billing provider is made for the team on first use). Keys, clients and tokens are minted by
// AccessService (access.ts); this reads the team and talks to the billing provider.
import type { Kysely } from 'kysely';
import type { BillingClient } from '../billing/stripe.ts';
import type { AccessRepo, ApiKeyRow, KeyRepo, TeamRow } from '../store/keys.ts';
import type { Database } from '../store/schema.ts';
import { liveUsage, teamCounters } from '../store/stats.ts';
import type { Principal } from './principal.ts';

export interface Usage {
  activeInboxes: number;
  storedMessages: number;
  storedBytes: number;
  /** Lifetime totals of the team; null for a key with a label scope (they would count other runs). */
  totals: { inboxesCreated: number; messagesReceived: number; bytesReceived: number; messagesSent: number } | null;
}

export class AccountService {
  private readonly db: Kysely<Database>;
  private readonly keys: KeyRepo;
  private readonly access: AccessRepo;
  private readonly billing: BillingClient;

  constructor(d: { db: Kysely<Database>; keys: KeyRepo; access: AccessRepo; billing: BillingClient }) {
    this.db = d.db;
    this.keys = d.keys;
    this.access = d.access;
    this.billing = d.billing;
  }

  /** The caller's team (it exists: a key cannot outlive its team). */
  async team(p: Principal): Promise<TeamRow> {
    return (await this.keys.team(p.teamId))!;
  }

  async teamAndKeys(p: Principal): Promise<{ team: TeamRow; keys: ApiKeyRow[] }> {
    const team = await this.team(p);
    return { team, keys: await this.keys.listForTeam(p.teamId) };
  }

  /** Live counts within the key's label scope; lifetime totals only for an unscoped key. */
  async usage(p: Principal): Promise<Usage> {
    const live = await liveUsage(this.db, p.teamId, p.scope.labelPrefix);
    if (p.scope.labelPrefix !== null) return { ...live, totals: null };
    const c = await teamCounters(this.db, p.teamId);
    return {
      ...live,
      totals: {
        inboxesCreated: c.inboxesCreated ?? 0,
        messagesReceived: c.messagesReceived ?? 0,
        bytesReceived: c.bytesReceived ?? 0,
        messagesSent: c.messagesSent ?? 0,
      },
    };
  }

  async checkout(p: Principal, successUrl: string, cancelUrl: string): Promise<{ id: string; url: string }> {
    return this.billing.checkout(await this.billingCustomer(p), p.teamId, successUrl, cancelUrl);
  }

  async portal(p: Principal, returnUrl: string): Promise<{ id: string; url: string }> {
    return this.billing.portal(await this.billingCustomer(p), returnUrl);
  }

  private async billingCustomer(p: Principal): Promise<string> {
    const team = await this.team(p);
    if (team.billing_customer_id) return team.billing_customer_id;
    const id = await this.billing.createCustomer(team.id, team.name);
    await this.access.setBillingCustomer(team.id, id);
    return id;
  }
}
