// The pure rules of a run: the step plan, status changes, JSON Merge Patch, secret masking.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkStatusChange, currentStep, maskSecrets, mergePatch, planSteps, presetOfName, type Run } from '../../src/runs/model.ts';

test('four steps per service, in order, with stable ids', () => {
  const steps = planSteps([
    { name: 'GitHub', preset: presetOfName('GitHub'), inboxId: null, address: null, afterSeq: 0 },
    { name: 'Acme', preset: presetOfName('Acme'), inboxId: null, address: null, afterSeq: 0 },
  ]);
  assert.deepEqual(
    steps.map((s) => s.stepId),
    [
      '1.get_address',
      '1.submit_form',
      '1.wait_for_mail',
      '1.use_verification',
      '2.get_address',
      '2.submit_form',
      '2.wait_for_mail',
      '2.use_verification',
    ],
  );
  assert.equal(presetOfName(' GitHub '), 'github');
  assert.equal(presetOfName('Acme'), null);
  const run = { steps } as Run;
  steps[0]!.status = 'done';
  steps[1]!.status = 'skipped';
  steps[2]!.status = 'failed';
  assert.equal(currentStep(run)?.stepId, '1.wait_for_mail', 'a failed step comes back');
});

test('succeeded is final; other statuses may change', () => {
  assert.throws(() => checkStatusChange('succeeded', 'active'), /already succeeded/);
  assert.throws(() => checkStatusChange('succeeded', 'failed'), /already succeeded/);
  checkStatusChange('succeeded', 'succeeded');
  checkStatusChange('failed', 'active');
  checkStatusChange('abandoned', 'active');
  checkStatusChange('active', 'abandoned');
});

test('JSON Merge Patch (RFC 7396 examples)', () => {
  assert.deepEqual(mergePatch({ a: 'b' }, { a: 'c' }), { a: 'c' });
  assert.deepEqual(mergePatch({ a: 'b' }, { b: 'c' }), { a: 'b', b: 'c' });
  assert.deepEqual(mergePatch({ a: 'b' }, { a: null }), {});
  assert.deepEqual(mergePatch({ a: 'b', b: 'c' }, { a: null }), { b: 'c' });
  assert.deepEqual(mergePatch({ a: ['b'] }, { a: 'c' }), { a: 'c' });
  assert.deepEqual(mergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } }), { a: { b: 'd' } });
  assert.deepEqual(mergePatch({ a: [{ b: 'c' }] }, { a: [1] }), { a: [1] });
  assert.deepEqual(mergePatch({}, { a: { bb: { ccc: null } } }), { a: { bb: {} } });
});

test('credential-looking keys are masked at any depth, other values kept', () => {
  assert.deepEqual(
    maskSecrets({
      user: 'ada',
      Password: 'x',
      nested: { api_key: 'k', list: [{ sessionToken: 't', ok: 1 }] },
      otpSeen: true,
      secret: null,
    }),
    { user: 'ada', Password: '***', nested: { api_key: '***', list: [{ sessionToken: '***', ok: 1 }] }, otpSeen: '***', secret: null },
  );
});
