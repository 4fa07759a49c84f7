// Label rules (README "Labels by rule"): saved queries in the search language that add labels to arriving mail.
// POST/GET /v1/label-rules, PATCH/DELETE /v1/label-rules/:id and the MCP tools svc_*_label_rule(s).
import { z } from 'zod';
import type { LabelRuleRow } from '../../labels/repo.ts';
import { principal } from '../common.ts';
import { op } from '../op.ts';

const RuleId = z.string().min(1).max(64).describe('Label rule id (lbr_…)');
const Query = z
  .string()
  .trim()
  .min(1)
  .max(1000)
  .describe(
    'Which mail it labels, in the search language: words, "a phrase", from:, to:, subject:, label:, has:attachment|code|link, OR, -term',
  );
const Labels = z.array(z.string().max(200)).min(1).max(10).describe('Labels added to each matching message (1-10; stored lower case)');
const Name = z.string().trim().max(200).optional().describe('A name for people (default: the query)');

const RuleView = z.object({
  ruleId: z.string(),
  name: z.string(),
  query: z.string(),
  labels: z.array(z.string()),
  labelPrefix: z.string().nullable().describe('Made by a key with this label prefix: applies only to inboxes whose label starts with it'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const view = (r: LabelRuleRow): z.infer<typeof RuleView> => ({
  ruleId: r.id,
  name: r.name,
  query: r.query,
  labels: JSON.parse(r.labels_json) as string[],
  labelPrefix: r.label_prefix,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

export const createLabelRule = op({
  name: 'labels.create_rule',
  summary: 'Create a label rule',
  description:
    'Saves a query in the search language; every message that arrives afterwards in an inbox of the team (of the key scope) and matches it gets the labels. 409 beyond --max-label-rules rules per team; 400 naming the problem for a malformed query.',
  access: 'write',
  http: { method: 'POST', path: '/v1/label-rules', status: 201 },
  tool: {
    name: 'svc_create_label_rule',
    description: 'Create a rule that adds labels to arriving mail that matches a search query (e.g. from:github.com).',
  },
  input: z.strictObject({ name: Name, query: Query, labels: Labels }),
  output: RuleView,
  audit: { action: 'label_rule.create', target: (_i, o) => o.ruleId },
  async handler(ctx, input) {
    return view(await ctx.services.labelRules.create(principal(ctx), input));
  },
});

export const listLabelRules = op({
  name: 'labels.list_rules',
  summary: 'List label rules',
  description: "The team's label rules the key can see (a key with a label prefix: the rules made under it), oldest first.",
  access: 'read',
  http: { method: 'GET', path: '/v1/label-rules' },
  tool: {
    name: 'svc_list_label_rules',
    description: 'List the label rules this key can see (query and labels), oldest first, for arriving mail.',
  },
  input: z.strictObject({}),
  output: z.object({ items: z.array(RuleView), nextCursor: z.null() }),
  async handler(ctx) {
    return { items: (await ctx.services.labelRules.list(principal(ctx))).map(view), nextCursor: null };
  },
});

export const updateLabelRule = op({
  name: 'labels.update_rule',
  summary: 'Change a label rule',
  description: 'Changes the query, the labels or the name of a label rule; mail arriving afterwards is matched by the new version.',
  access: 'write',
  http: { method: 'PATCH', path: '/v1/label-rules/:id' },
  tool: {
    name: 'svc_update_label_rule',
    description: "Change a label rule's query, labels or name; mail arriving afterwards gets the new version.",
    args: { ruleId: 'id' },
  },
  input: z.strictObject({ id: RuleId, name: Name, query: Query.optional(), labels: Labels.optional() }),
  output: RuleView,
  audit: { action: 'label_rule.update', target: (i) => i.id },
  async handler(ctx, input) {
    const { id, ...rest } = input;
    return view(await ctx.services.labelRules.update(principal(ctx), id, rest));
  },
});

export const deleteLabelRule = op({
  name: 'labels.delete_rule',
  summary: 'Delete a label rule',
  description: 'Deletes a label rule; labels it already added stay on their messages.',
  access: 'write',
  http: { method: 'DELETE', path: '/v1/label-rules/:id' },
  tool: {
    name: 'svc_delete_label_rule',
    description: 'Delete a label rule; labels already added stay, new mail is no longer labelled by it.',
    args: { ruleId: 'id' },
    annotations: { destructiveHint: true },
  },
  input: z.strictObject({ id: RuleId }),
  output: z.object({ ruleId: z.string(), deleted: z.literal(true) }),
  audit: { action: 'label_rule.delete', target: (i) => i.id },
  async handler(ctx, input) {
    await ctx.services.labelRules.delete(principal(ctx), input.id);
    return { ruleId: input.id, deleted: true as const };
  },
});

export const labelRuleOps = [createLabelRule, listLabelRules, updateLabelRule, deleteLabelRule];
