// PNG renderings of a stored message by chromium (`--render-chromium`), and a pixel comparison of two (issue 32):
// the edges of src/render/service.ts. Not configured → 501 not_configured saying which flag to set.
import { z } from 'zod';
import { MAX_HEIGHT, RENDER_WIDTH, type RenderOptions } from '../../render/service.ts';
import { InboxId, inboxOf, MessageId } from '../common.ts';
import { op } from '../op.ts';

const Options = {
  width: z.coerce
    .number()
    .int('width must be a whole number of CSS pixels')
    .min(RENDER_WIDTH.min, `width must be at least ${RENDER_WIDTH.min}`)
    .max(RENDER_WIDTH.max, `width must be at most ${RENDER_WIDTH.max}`)
    .default(RENDER_WIDTH.default)
    .describe(
      `Viewport width in CSS pixels (${RENDER_WIDTH.min}-${RENDER_WIDTH.max}, default ${RENDER_WIDTH.default}): 375 phone, 768 tablet, 1280 desktop`,
    ),
  images: z
    .enum(['on', 'off'], { error: 'images must be on or off' })
    .default('on')
    .describe('on (default): the mail’s inline cid: images; off: none. Remote images are never fetched'),
  theme: z
    .enum(['light', 'dark'], { error: 'theme must be light or dark' })
    .default('light')
    .describe('light or dark: the prefers-color-scheme the mail sees'),
};

export const renderMessageOp = op({
  name: 'messages.render',
  summary: 'Render a message to PNG (chromium)',
  description: `The message’s HTML (or its text) as a browser draws it at a width, with scripts off and no network: PNG, at most ${MAX_HEIGHT} pixels tall (X-Render-Truncated says it was cut). Needs --render-chromium; one rendering at a time, a full queue is 503 with Retry-After.`,
  access: 'read',
  audit: false,
  http: { method: 'GET', path: '/v1/inboxes/:id/messages/:messageId/render', raw: ['image/png'] },
  tool: {
    name: 'svc_render_message',
    description:
      'See a message as a mail client draws it: a PNG of its HTML at a width (375 phone, 768 tablet, 1280 desktop), images on or off, light or dark; needs --render-chromium.',
    args: { inboxId: 'id' },
    accept: 'image/png',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({ id: InboxId, messageId: MessageId, ...Options }),
  output: z.object({}).describe('image/png'),
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const r = await ctx.services.render.message(inbox, input.messageId, input as RenderOptions, ctx.signal);
    return {
      kind: 'raw' as const,
      contentType: 'image/png',
      image: true,
      body: r.png,
      size: r.png.length,
      headers: {
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'X-Render-Width': String(r.width),
        'X-Render-Height': String(r.height),
        'X-Render-Truncated': String(r.truncated),
        'X-Render-Blocked': String(r.blocked),
      },
    };
  },
});

const Side = z.object({ messageId: z.string(), width: z.number(), height: z.number(), truncated: z.boolean(), blocked: z.number() });

export const compareRenderingsOp = op({
  name: 'messages.render_compare',
  summary: 'Compare the renderings of two messages',
  description:
    'Renders this message and another (`with`, in this inbox or `withInbox`) at the same width, images and theme, and counts the pixels that differ (rows only the taller one has all count). Needs --render-chromium.',
  access: 'read',
  audit: false,
  http: { method: 'GET', path: '/v1/inboxes/:id/messages/:messageId/render/compare' },
  tool: {
    name: 'svc_compare_renderings',
    description:
      'Visual regression check of two e-mails: renders both in chromium at the same width (375 phone, 768 tablet, 1280 desktop), images on/off and light/dark, and answers how many pixels differ (0 = identical). Needs the server started with --render-chromium.',
    args: { inboxId: 'id' },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    id: InboxId,
    messageId: MessageId,
    with: MessageId.describe('The other message (msg_…)'),
    withInbox: InboxId.optional().describe('The other message’s inbox, when it is not this one'),
    ...Options,
  }),
  output: z.object({
    a: Side,
    b: Side,
    differentPixels: z.number().int(),
    totalPixels: z.number().int(),
    ratio: z.number().describe('differentPixels / totalPixels'),
  }),
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const other = input.withInbox && input.withInbox !== inbox.id ? await inboxOf(ctx, input.withInbox) : inbox;
    const r = await ctx.services.render.compare(
      { inbox, messageId: input.messageId },
      { inbox: other, messageId: input.with },
      input as RenderOptions,
      ctx.signal,
    );
    const side = (messageId: string, x: typeof r.a) => ({
      messageId,
      width: x.width,
      height: x.height,
      truncated: x.truncated,
      blocked: x.blocked,
    });
    return {
      a: side(input.messageId, r.a),
      b: side(input.with, r.b),
      differentPixels: r.differentPixels,
      totalPixels: r.totalPixels,
      ratio: r.totalPixels ? r.differentPixels / r.totalPixels : 0,
    };
  },
});

export const renderOps = [renderMessageOp, compareRenderingsOp];
