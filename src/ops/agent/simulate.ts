// POST /v1/inboxes/:id/simulate: a realistic message, styled after a service preset, through the real ingest path.
import { z } from 'zod';
import { SCENARIOS } from '../../mail/simulate.ts';
import { InboxId, inboxOf, singleLine } from '../common.ts';
import { op } from '../op.ts';
import { Service } from './agent.ts';

export const simulate = op({
  name: 'inboxes.simulate',
  summary: 'Simulate an incoming message',
  description:
    'Delivers a realistic message to the inbox without any real mail: `otp`, `magic_link`, `otp_and_link`, `welcome` (no code, no link), `attachment_only` (the code only inside a PDF), or `custom` (your from/subject/text/html). `service` styles it after a preset (sender domain, code shape). The answer says what a correct extraction finds (`expected`).',
  access: 'write',
  http: { method: 'POST', path: '/v1/inboxes/:id/simulate', status: 201, bodyLimit: (s) => s.config.maxMessageBytes + 64 * 1024 },
  tool: {
    name: 'svc_simulate_message',
    description: 'Deliver a test message (a code, a link, a welcome…) to an inbox without a real sender.',
    args: { inboxId: 'id' },
  },
  input: z.strictObject({
    id: InboxId,
    scenario: z
      .enum(SCENARIOS, { error: () => `scenario must be one of: ${SCENARIOS.join(', ')}` })
      .default('otp')
      .describe(`What to deliver: ${SCENARIOS.join(', ')} (default otp; custom uses your from/subject/text/html)`),
    service: Service.optional(),
    from: singleLine(z.string().min(3).max(320)).optional().describe('From header, e.g. "Acme <no-reply@acme.test>"'),
    subject: singleLine(z.string().max(998)).optional().describe('Subject line (custom scenario)'),
    text: z.string().optional().describe('Plain-text body (custom scenario)'),
    html: z.string().optional().describe('HTML body (custom scenario)'),
    code: z
      .string()
      .regex(/^[A-Za-z0-9-]{4,12}$/, 'code must be 4-12 letters, digits or dashes')
      .optional()
      .describe('Use this code instead of a random one'),
    link: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .describe('Use this link instead of a random one'),
  }),
  output: z.object({
    messageId: z.string(),
    inboxId: z.string(),
    scenario: z.string(),
    from: z.string(),
    subject: z.string(),
    size: z.number().int(),
    expected: z.object({ otp: z.string().nullable(), primaryLink: z.string().nullable() }),
  }),
  audit: false,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const { id: _id, ...req } = input;
    const d = await ctx.services.agent.simulate(inbox, req);
    return { ...d, inboxId: inbox.id, scenario: input.scenario };
  },
});

export const simulateOps = [simulate];
