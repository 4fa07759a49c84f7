// GET /v1/workspace/drafts/:id (the console's review of a draft in the today view): the draft's text and each
// safety rule's verdict on it, the outcome under every mode; 404 for another label scope's draft; nothing sent.
// @cluster
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer } from '../../helpers/server.ts';
import { deliver, mintKey, newInbox } from '../../helpers/workspace-mail.ts';

test('a draft is shown with its text and every rule’s verdict; a key of another label prefix gets 404', async () => {
  const s = await startTestServer();
  try {
    const inbox = await newInbox(s, { label: 'team-a' });
    const messageId = await deliver(s, { from: 'amy@partner.example', to: inbox.address, subject: 'Price', text: 'What is the price?' });
    const exec = await json(
      await s.api('/v1/workspace/execute-reply', {
        method: 'POST',
        json: { inboxId: inbox.inboxId, messageId, text: 'It is 990 EUR, pay at https://pay.example/x', idempotencyKey: 'rv1' },
      }),
    );
    assert.equal(exec.outcome, 'drafted');
    const r = await s.api(`/v1/workspace/drafts/${exec.draftId}`);
    assert.equal(r.status, 200);
    const j = await json(r);
    assert.equal(j.draft.draftId, exec.draftId);
    assert.equal(j.draft.status, 'pending');
    assert.equal(j.draft.to, 'amy@partner.example');
    assert.match(j.draft.text, /990 EUR/);
    assert.equal(j.evaluation.mode, 'draft_only');
    assert.equal(j.evaluation.outcome, 'drafted');
    const byRule = new Map((j.evaluation.checks as Json[]).map((c) => [c.rule, c]));
    assert.equal(byRule.get('no_new_numbers')?.passed, false, 'the draft brings a new amount');
    assert.equal(byRule.get('no_new_links')?.passed, false, 'and a new link');
    assert.equal(byRule.get('not_automated_mail')?.passed, true);
    assert.equal(j.evaluation.outcomes.auto_send_safe, 'blocked');
    // No relay here: partner.example is not served, so even full_auto would keep it (a hard rule).
    assert.equal(byRule.get('recipient_deliverable')?.passed, false);
    assert.equal(j.evaluation.outcomes.full_auto, 'blocked');

    const other = await mintKey(s, { label: 'b', role: 'member', scope: { labelPrefix: 'team-b' } });
    const hidden = await s.api(`/v1/workspace/drafts/${exec.draftId}`, { key: other });
    assert.equal(hidden.status, 404);
    await hidden.arrayBuffer();
    const unknown = await s.api('/v1/workspace/drafts/drf_nope');
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as Json).detail, /GET \/v1\/workspace\/today/);
  } finally {
    await s.stop();
  }
});
