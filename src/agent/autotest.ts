// The self-test behind GET /v1/agent/autotest: the whole flow end to end inside this server (create an inbox,
// simulate mail, verify, clean up), through the same services the operations use.
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { WaitCall } from '../inboxes/wait.ts';
import type { SimulateRequest } from '../mail/simulate.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRow } from '../store/messages.ts';
import { VERSION } from '../version.ts';
import type { SimulatedDelivery } from './simulate.ts';
import type { VerifyResult, WaitAndExtract } from './verify.ts';

export const SelfTestReport = z.object({
  pass: z.boolean(),
  version: z.string(),
  totalMs: z.number(),
  steps: z.array(z.object({ name: z.string(), ok: z.boolean(), ms: z.number(), detail: z.string() })),
});
export type SelfTestReport = z.infer<typeof SelfTestReport>;

/** What the self-test drives: the inboxes, simulated delivery, verify and a look at an inbox's newest message. */
export interface SelfTestDeps {
  inboxes: Pick<InboxService, 'create' | 'delete'>;
  simulate(inbox: InboxRow, req: Omit<SimulateRequest, 'to'>): Promise<SimulatedDelivery>;
  waitAndExtract(call: WaitCall, w: WaitAndExtract): Promise<VerifyResult>;
  latest(inboxId: string): Promise<MessageRow | undefined>;
}

export async function runSelfTest(d: SelfTestDeps, p: Principal, call: WaitCall): Promise<SelfTestReport> {
  const steps: SelfTestReport['steps'] = [];
  const t0 = performance.now();
  const step = async (name: string, fn: () => Promise<string>): Promise<boolean> => {
    const t = performance.now();
    try {
      const detail = await fn();
      steps.push({ name, ok: true, ms: round(performance.now() - t), detail });
      return true;
    } catch (e) {
      steps.push({ name, ok: false, ms: round(performance.now() - t), detail: (e as Error).message });
      return false;
    }
  };
  const { inbox } = await d.inboxes.create(p, {
    label: p.scope.labelPrefix ?? 'autotest',
    ttlMinutes: 5,
    service: 'github',
  });
  try {
    await step('otp: simulate, wait, extract', async () => {
      const sim = await d.simulate(inbox, { scenario: 'otp', service: 'github' });
      const r = await d.waitAndExtract(call, {
        inbox,
        service: 'github',
        timeoutSeconds: 5,
        subjectContains: sim.subject,
        deleteAfter: false,
      });
      if (r.status !== 'verified' || r.verification.otp !== sim.expected.otp)
        throw new Error(`expected code ${sim.expected.otp}, got ${r.status} ${r.verification.otp}`);
      return `code ${r.verification.otp} → primaryAction ${r.agent.primaryAction.type}`;
    });
    await step('magic link: simulate, wait, extract', async () => {
      const before = await d.latest(inbox.id);
      const sim = await d.simulate(inbox, { scenario: 'magic_link', service: 'github' });
      const r = await d.waitAndExtract(call, {
        inbox,
        service: 'github',
        timeoutSeconds: 5,
        subjectContains: sim.subject,
        deleteAfter: false,
      });
      if (r.message?.messageId === before?.id || r.verification.primaryLink !== sim.expected.primaryLink)
        throw new Error(`expected link ${sim.expected.primaryLink}, got ${r.verification.primaryLink}`);
      return `link found → primaryAction ${r.agent.primaryAction.type}`;
    });
    await step('no verification purpose: manual', async () => {
      await d.simulate(inbox, { scenario: 'welcome', service: 'github' });
      const m = await d.latest(inbox.id);
      if (!m || m.otp || m.primary_link) throw new Error('a welcome mail yielded a code or link');
      return 'welcome mail → no code, no link';
    });
  } finally {
    await step('cleanup: delete the inbox', async () => {
      await d.inboxes.delete(inbox);
      return inbox.id;
    });
  }
  return { pass: steps.every((x) => x.ok), version: VERSION, totalMs: round(performance.now() - t0), steps };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
