// What the agent should do next, from the run's state and the mail its inboxes received (stored extraction of
// each message). Reading only: svc_plan_next changes nothing, it may just wait for mail first.
import type { Principal } from '../auth/principal.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { MailWaits } from '../inboxes/wait.ts';
import { getPreset } from '../mail/presets.ts';
import { currentStep, expectationOf, type Run, type RunServiceEntry, type RunStep } from './model.ts';
import { codeMailOf } from './records.ts';
import type { RunMail, RunRepo } from './repo.ts';

/** After this long without mail since the form was submitted, the planner suggests checking and resending. */
export const NO_MAIL_HINT_SECONDS = 90;

export const PLAN_ACTIONS = [
  'next_run',
  'use_address',
  'submit_form',
  'wait',
  'type_code',
  'open_link',
  'read_message',
  'resend',
  'report',
  'none',
] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

export interface Suggestion {
  action: PlanAction;
  value: string | null;
  reason: string;
}

export interface MailView {
  messageId: string;
  inboxId: string;
  from: string | null;
  subject: string;
  receivedAt: string;
  otp: string | null;
  link: string | null;
}

export interface Plan {
  step: RunStep | null;
  service: RunServiceEntry | null;
  mail: MailView | null;
  suggestions: Suggestion[];
}

export const mailView = (m: RunMail): MailView => ({
  messageId: m.id,
  inboxId: m.inbox_id,
  from: m.from_address,
  subject: m.subject,
  receivedAt: new Date(m.received_at).toISOString(),
  otp: m.otp,
  link: m.primary_link,
});

const displayName = (svc: RunServiceEntry) => (svc.preset ? getPreset(svc.preset).displayName : svc.name);

export async function planNext(repo: RunRepo, run: Run, now: number): Promise<Plan> {
  const none = (reason: string): Plan => ({
    step: null,
    service: null,
    mail: null,
    suggestions: [{ action: 'none', value: null, reason }],
  });
  if (run.status !== 'active') return none(`the run is ${run.status}; nothing is left to do (svc_get_run_timeline shows what happened)`);
  const step = currentStep(run);
  if (!step) return none('every step is done or skipped');
  const svc = run.services[step.serviceIndex]!;
  const name = displayName(svc);
  const plan = (suggestions: Suggestion[], mail: RunMail | null = null): Plan => ({
    step,
    service: svc,
    mail: mail ? mailView(mail) : null,
    suggestions,
  });
  const report = (why: string): Suggestion => ({ action: 'report', value: step.stepId, reason: why });
  if (!svc.inboxId || !svc.address)
    return plan([
      { action: 'next_run', value: null, reason: `call svc_next_run: it makes the inbox for ${name} and gives you its address` },
    ]);
  const address = svc.address;
  const { newest, withCode } = await codeMailOf(repo, svc);
  const useMail = (m: RunMail): Suggestion =>
    m.otp
      ? { action: 'type_code', value: m.otp, reason: `the code arrived: type ${m.otp} into the ${name} form` }
      : { action: 'open_link', value: m.primary_link, reason: `the ${name} verification link arrived: open it once in the browser` };

  // The code (or link) is offered as soon as it is there, whatever step the agent last reported: an agent that typed
  // the address and submitted the form before reporting get_address still gets its code now.
  if (withCode && (step.kind === 'get_address' || step.kind === 'submit_form'))
    return plan(
      [
        useMail(withCode),
        report(
          `mail with a code or link already reached ${address}, so the address was used and the form submitted: report ${step.stepId} done, then each step svc_next_run names until use_verification`,
        ),
      ],
      withCode,
    );
  if (step.kind === 'get_address')
    return plan([
      { action: 'use_address', value: address, reason: `your ${name} address is ${address}` },
      report(`report ${step.stepId} done, then svc_next_run gives the form step`),
    ]);
  if (step.kind === 'submit_form') {
    return plan([
      { action: 'submit_form', value: address, reason: `type ${address} into the e-mail field of the ${name} sign-up form and submit it` },
      report(`report ${step.stepId} done once the form is submitted (failed with a note if it was refused, e.g. a captcha)`),
    ]);
  }
  // wait_for_mail and use_verification: both hinge on the mail.
  if (withCode) {
    const then =
      step.kind === 'wait_for_mail'
        ? report(`report ${step.stepId} done; the next step is to use it`)
        : report(`report ${step.stepId} done when ${name} accepted it, failed when it rejected it`);
    return plan([useMail(withCode), then], withCode);
  }
  if (newest)
    return plan(
      [
        {
          action: 'read_message',
          value: newest.id,
          reason: `mail arrived ("${newest.subject}") but carries no code or link: read it with svc_get_raw_message (inboxId ${svc.inboxId}); the code may be in an image or an attachment`,
        },
      ],
      newest,
    );
  const rejected = run.steps.find((x) => x.serviceIndex === step.serviceIndex && x.kind === 'use_verification' && x.status === 'failed');
  if (rejected)
    return plan([
      {
        action: 'resend',
        value: address,
        reason: `${name} rejected the last code: ask it for a new one ("resend code", or submit the form again with ${address}), then call svc_plan_next with waitSeconds`,
      },
    ]);
  const since = sinceSubmitted(run, step) ?? now;
  const waited = Math.max(0, Math.round((now - since) / 1000));
  if (waited >= NO_MAIL_HINT_SECONDS)
    return plan([
      {
        action: 'resend',
        value: address,
        reason: `no mail after ${waited} s: check the address on the ${name} form is exactly ${address} (no typo, no space), then resend (the form's "resend" button, or submit it again)`,
      },
    ]);
  return plan([
    {
      action: 'wait',
      value: svc.inboxId,
      reason: `no mail yet at ${address} (${waited} s since the form was submitted): call svc_plan_next with waitSeconds (up to 120), or svc_wait_and_extract with inboxId ${svc.inboxId}`,
    },
  ]);
}

function sinceSubmitted(run: Run, step: RunStep): number | null {
  const form = run.steps.find((x) => x.serviceIndex === step.serviceIndex && x.kind === 'submit_form');
  return form?.finishedAt ?? step.startedAt;
}

/**
 * Waits (up to `seconds`) until the current step's service has mail with a code or link — at any step once the
 * service has its inbox, since an agent may submit the form before it reports get_address. Returns at once when the
 * run is finished or the service has no inbox yet. A deleted inbox or a cancelled call ends the wait early.
 */
export async function waitForCodeMail(
  d: { repo: RunRepo; inboxes: Pick<InboxService, 'get'>; waits: Pick<MailWaits, 'forMessage'> },
  p: Principal,
  run: Run,
  seconds: number,
  signal: AbortSignal,
  onTick?: (ms: number) => void,
): Promise<void> {
  const step = currentStep(run);
  if (run.status !== 'active' || !step) return;
  const svc = run.services[step.serviceIndex]!;
  if (!svc.inboxId) return;
  const deadline = Date.now() + seconds * 1000;
  const inbox = await d.inboxes.get(p, svc.inboxId).catch(() => null);
  if (!inbox) return;
  let ticked = false;
  for (;;) {
    const { newest, withCode } = await codeMailOf(d.repo, svc);
    const left = deadline - Date.now();
    if (withCode || left <= 0 || signal.aborted) return;
    if (!ticked) onTick?.(0);
    ticked = true;
    try {
      const hit = await d.waits.forMessage(inbox, { since: { seq: newest?.seq ?? svc.afterSeq } }, left, signal, onTick);
      if (!hit) return;
    } catch {
      return;
    }
  }
}

export function instructionFor(step: RunStep, svc: RunServiceEntry, mail: RunMail | null = null): string {
  const name = displayName(svc);
  const addr = svc.address ?? '(no address yet)';
  // The code is offered as soon as it is there (svc_plan_next does the same), whatever step was reported last.
  if (mail && (step.kind === 'get_address' || step.kind === 'submit_form'))
    return `${name}'s mail already reached ${addr}: ${mail.otp ? `type the code ${mail.otp}` : `open the link ${mail.primary_link}`} (it is in mail). Report ${step.stepId} done, then each step svc_next_run names until use_verification.`;
  switch (step.kind) {
    case 'get_address':
      return `Your address for ${name} is ${addr}. Report step ${step.stepId} done (svc_report_run), then call svc_next_run for the form step.`;
    case 'submit_form':
      return `Open the ${name} sign-up page, type ${addr} into its e-mail field and submit the form. Report ${step.stepId} done when it is submitted, or failed with a note (e.g. "captcha").`;
    case 'wait_for_mail': {
      const x = expectationOf(svc);
      const what = x.sends === 'unknown' ? 'a code or a link' : x.sends === 'both' ? 'a code or a link' : `a ${x.sends}`;
      return `Wait for ${name}'s mail with ${what} at ${addr}: call svc_plan_next with waitSeconds (up to 120); it tells you when the code or link arrived. Then report ${step.stepId} done.`;
    }
    case 'use_verification':
      return `Type the code (or open the link) svc_plan_next shows into the ${name} form. Report ${step.stepId} done when ${name} accepted it, failed when it rejected it (svc_plan_next then waits for a new one).`;
  }
}
