// The pure rules of a run: the step plan, status changes, JSON Merge Patch, secret masking.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkStatusChange,
  currentStep,
  isSecretKey,
  keyWords,
  maskSecrets,
  maskSubject,
  maskValue,
  mergePatch,
  planSteps,
  presetOfName,
  type Run,
} from '../../src/runs/model.ts';

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

test('the masking rule: key words without case or separators, token-looking values, linear on hostile input', () => {
  assert.deepEqual(keyWords('x-api-key'), ['x', 'api', 'key']);
  assert.deepEqual(keyWords('APIKey'), ['api', 'key']);
  assert.deepEqual(keyWords('verificationCode'), ['verification', 'code']);
  for (const k of ['privateKey', 'PRIVATE_KEY', 'pin', 'userPin', 'verificationCode', 'verification-code', 'authorization', 'x-api-key'])
    assert.ok(isSecretKey(k), k);
  for (const k of ['countryCode', 'zipCode', 'primaryKey', 'keyId', 'pinned', 'shipping', 'user', 'statusCode'])
    assert.ok(!isSecretKey(k), k);
  assert.equal(maskValue('Bearer abc.def-123456'), 'Bearer ***');
  assert.equal(maskValue('key sk-proj-ABCDEFGHIJKLMNOPQRST here'), 'key *** here');
  assert.equal(maskValue('3f2b8c1e-4a5d-4e6f-9a7b-1c2d3e4f5a6b'), '3f2b8c1e-4a5d-4e6f-9a7b-1c2d3e4f5a6b', 'a UUID is an id');
  assert.equal(maskValue('plain words stay'), 'plain words stay');
  assert.equal(maskSubject('Your code: 482913', '482913'), 'Your code: ***');
  // Hostile shapes (a long capital run, repeated prefixes) are handled in one pass.
  const t0 = performance.now();
  keyWords('A'.repeat(60_000));
  maskValue('eyJ'.repeat(20_000));
  maskValue(`${'sk-'.repeat(20_000)}!`);
  maskValue(`Bearer ${'-----BEGIN '.repeat(5000)}`);
  assert.ok(performance.now() - t0 < 2000, 'not blocked');
});
