// The self-test behind GET /v1/agent/autotest: the whole flow end to end inside this server.
import { z } from 'zod';
import { principal } from '../ops/common.ts';
import type { OpContext } from '../ops/op.ts';
import { VERSION } from '../version.ts';
import { simulateInto } from './simulate.ts';
import { waitAndExtract } from './verify.ts';

export const SelfTestReport = z.object({
  pass: z.boolean(),
  version: z.string(),
  totalMs: z.number(),
  steps: z.array(z.object({ name: z.string(), ok: z.boolean(), ms: z.number(), detail: z.string() })),
});
export type SelfTestReport = z.infer<typeof SelfTestReport>;

export async function runSelfTest(ctx: OpContext): Promise<SelfTestReport> {
  const s = ctx.services;
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
  const { inbox } = await s.inboxes.create(principal(ctx), {
    label: principal(ctx).scope.labelPrefix ?? 'autotest',
    ttlMinutes: 5,
    service: 'github',
  });
  const deps = { ingest: s.ingest, maxMessageBytes: s.config.maxMessageBytes };
  try {
    await step('otp: simulate, wait, extract', async () => {
      const sim = await simulateInto(deps, inbox, { scenario: 'otp', service: 'github' });
      const r = await waitAndExtract(ctx, {
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
      const before = await s.messages.latest(inbox.id);
      const sim = await simulateInto(deps, inbox, { scenario: 'magic_link', service: 'github' });
      const r = await waitAndExtract(ctx, {
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
      await simulateInto(deps, inbox, { scenario: 'welcome', service: 'github' });
      const m = await s.messages.latest(inbox.id);
      if (!m || m.otp || m.primary_link) throw new Error('a welcome mail yielded a code or link');
      return 'welcome mail → no code, no link';
    });
  } finally {
    await step('cleanup: delete the inbox', async () => {
      await s.inboxes.delete(inbox);
      return inbox.id;
    });
  }
  return { pass: steps.every((x) => x.ok), version: VERSION, totalMs: round(performance.now() - t0), steps };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
