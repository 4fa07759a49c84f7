// `--print otp|link|action|…`: print one bare value instead of the JSON answer, for `VALUE=$(inboxd verify …)` in a
// shell step. No such value is exit 4 with stdout empty, so the step fails instead of going on with "null" (issue 27:
// `… | jq -r .verification.otp` printed null and exited 0 on a timeout).
import { ClientError, EXIT, type FlagSpec, one, type Parsed, usage } from './args.ts';

type Json = Record<string, unknown>;

/** What each printable name reads from an answer; `null` when the answer has none. */
type Pickers = Record<string, { help: string; pick: (a: Json) => string | null }>;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const at = (a: Json, ...path: string[]): unknown => path.reduce<unknown>((o, k) => (o as Json | null | undefined)?.[k], a);

/** A code if there is one, else the link: what the person or agent acts on. */
const action = (otp: string | null, link: string | null) => otp ?? link;

export const VERIFY_PRINT: Pickers = {
  otp: { help: 'code', pick: (a) => str(at(a, 'verification', 'otp')) },
  link: { help: 'link', pick: (a) => str(at(a, 'verification', 'primaryLink')) },
  action: {
    help: 'code, else link',
    pick: (a) => action(str(at(a, 'verification', 'otp')), str(at(a, 'verification', 'primaryLink'))),
  },
  address: { help: 'address to type into the form', pick: (a) => str(at(a, 'email', 'address')) },
};

export const WAIT_PRINT: Pickers = {
  otp: { help: 'code', pick: (a) => str(at(a, 'verification', 'otp')) },
  link: { help: 'link', pick: (a) => str(at(a, 'verification', 'primaryLink')) },
  action: {
    help: 'code, else link',
    pick: (a) => action(str(at(a, 'verification', 'otp')), str(at(a, 'verification', 'primaryLink'))),
  },
  id: { help: 'message id', pick: (a) => str(a.messageId) },
};

export const SIMULATE_PRINT: Pickers = {
  otp: { help: 'code', pick: (a) => str(at(a, 'expected', 'otp')) },
  link: { help: 'link', pick: (a) => str(at(a, 'expected', 'primaryLink')) },
  action: {
    help: 'code, else link',
    pick: (a) => action(str(at(a, 'expected', 'otp')), str(at(a, 'expected', 'primaryLink'))),
  },
  id: { help: 'message id', pick: (a) => str(a.messageId) },
};

export function printFlag(p: Pickers): FlagSpec {
  const names = Object.keys(p);
  return {
    arg: names.join('|'),
    help: `print only this value, bare (${names.map((n) => `${n}: the ${p[n]!.help}`).join('; ')}); exit ${EXIT.noValue} when the answer has none`,
  };
}

/** The picker --print names, or undefined without --print; a usage error (before any request) for an unknown name. */
export function printChoice(p: Parsed, pickers: Pickers): string | undefined {
  const v = one(p, '--print');
  if (v === undefined) return undefined;
  if (!Object.hasOwn(pickers, v)) throw usage(`--print must be one of ${Object.keys(pickers).join(', ')} (got '${v}')`);
  return v;
}

/**
 * Writes the answer: the JSON line, or with --print its one value. Exit 4 ("no value", stdout empty) when the answer
 * has no such value; `why` says what the answer was instead.
 */
export function printAnswer(out: (s: string) => void, answer: Json, pickers: Pickers, choice: string | undefined, why: string): number {
  if (choice === undefined) {
    out(JSON.stringify(answer));
    return EXIT.ok;
  }
  const value = pickers[choice]!.pick(answer);
  if (value === null)
    throw new ClientError(
      'no value',
      `${why} has no ${pickers[choice]!.help} (--print ${choice}); drop --print to see the whole answer`,
      EXIT.noValue,
    );
  out(value);
  return EXIT.ok;
}
