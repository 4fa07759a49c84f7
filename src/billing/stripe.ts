// The two (three) calls of a Stripe-compatible billing API that checkout and the customer portal need.
// Configured by --billing-api-base and INBOXD_BILLING_SECRET_KEY; absent configuration is a 501.
import { AppError } from '../errors.ts';

export interface BillingConfig {
  apiBase: string | undefined;
  secretKey: string | undefined;
  price: string | undefined;
}

export class BillingClient {
  private readonly cfg: BillingConfig;
  constructor(cfg: BillingConfig) {
    this.cfg = cfg;
  }

  private configured(): { apiBase: string; secretKey: string } {
    if (!this.cfg.apiBase || !this.cfg.secretKey) {
      throw new AppError(
        'not_configured',
        'billing is not configured on this inboxd: set --billing-api-base and INBOXD_BILLING_SECRET_KEY (and --billing-price for checkout)',
      );
    }
    return { apiBase: this.cfg.apiBase, secretKey: this.cfg.secretKey };
  }

  private async post(path: string, form: Record<string, string>): Promise<Record<string, unknown>> {
    const { apiBase, secretKey } = this.configured();
    let res: Response;
    try {
      res = await fetch(apiBase + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      throw new AppError('unavailable', `the billing provider did not answer (${(e as Error).message}); try again later`);
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const msg = (body.error as { message?: string } | undefined)?.message ?? `HTTP ${res.status}`;
      throw new AppError('unavailable', `the billing provider refused ${path}: ${msg}`);
    }
    return body;
  }

  async createCustomer(teamId: string, name: string): Promise<string> {
    const c = await this.post('/v1/customers', { name, 'metadata[team_id]': teamId });
    if (typeof c.id !== 'string') throw new AppError('unavailable', 'the billing provider returned a customer without an id');
    return c.id;
  }

  async checkout(customer: string, teamId: string, successUrl: string, cancelUrl: string): Promise<{ id: string; url: string }> {
    if (!this.cfg.price) throw new AppError('not_configured', 'checkout needs --billing-price (the price id of the paid plan)');
    const s = await this.post('/v1/checkout/sessions', {
      mode: 'subscription',
      customer,
      client_reference_id: teamId,
      'line_items[0][price]': this.cfg.price,
      'line_items[0][quantity]': '1',
      success_url: successUrl,
      cancel_url: cancelUrl,
    });
    if (typeof s.url !== 'string') throw new AppError('unavailable', 'the billing provider returned a checkout session without a url');
    return { id: String(s.id), url: s.url };
  }

  async portal(customer: string, returnUrl: string): Promise<{ id: string; url: string }> {
    const s = await this.post('/v1/billing_portal/sessions', { customer, return_url: returnUrl });
    if (typeof s.url !== 'string') throw new AppError('unavailable', 'the billing provider returned a portal session without a url');
    return { id: String(s.id), url: s.url };
  }
}
