// `inboxd faults set|list|clear|timeline`: fault rules from a shell step (README "Fault rules"). One request each,
// the answer as JSON on stdout.
import { readFile } from 'node:fs/promises';
import { ClientError, ENV_HELP, EXIT, exitHelp, type FlagSpec, flagsHelp, has, one, type Parsed, usage } from './args.ts';
import type { Client } from './http.ts';

export const FAULTS_FLAGS: Record<string, FlagSpec> = {
  '--inbox': { arg: 'INBOX', help: 'the rules of this inbox (an id inb_… or its address)' },
  '--label-prefix': { arg: 'P', help: 'the rules of inboxes whose label starts with P' },
  '--rules': { arg: 'JSON', help: 'set: the rules as a JSON array (or one rule object)' },
  '--file': { arg: 'FILE', help: 'set: the rules from a JSON file (- = stdin)' },
  '--stage': { arg: 'STAGE', help: 'set one rule: connect, ehlo, auth, mail, rcpt, data or end-of-data (default rcpt)' },
  '--reply': { arg: 'CODE', help: 'set one rule: reply with this code (400-599)' },
  '--enhanced': { arg: 'X.Y.Z', help: 'set one rule: the enhanced status code of --reply' },
  '--text': { arg: 'TEXT', help: 'set one rule: the reply text of --reply' },
  '--disconnect': { help: 'set one rule: drop the connection' },
  '--delay': { arg: 'MS', help: 'set one rule: hold the reply MS milliseconds (at most 30000)' },
  '--greylist': { arg: 'S', help: 'set one rule: greylist, accept a retry after S seconds' },
  '--rate-limit': { arg: 'N/S', help: 'set one rule: a 421 rate limit of N messages per S seconds per client' },
  '--mailbox-full': { help: 'set one rule: 452 4.2.2 mailbox full' },
  '--recipient': { arg: 'GLOB', help: 'set one rule: only recipients matching GLOB' },
  '--sender': { arg: 'GLOB', help: 'set one rule: only senders matching GLOB' },
  '--first': { arg: 'N', help: 'set one rule: fire on the first N matches only' },
  '--every': { arg: 'N', help: 'set one rule: fire on every Nth match' },
  '--probability': { arg: 'P', help: 'set one rule: fire with chance P (0-1), with --seed' },
  '--seed': { arg: 'N', help: 'the seed of --probability (the same seed gives the same sequence)' },
  '--since': { arg: 'TIME', help: 'timeline: only events at or after this ISO 8601 time' },
  '--limit': { arg: 'N', help: 'timeline: at most N events (1-500, default 100)' },
};

export const FAULTS_HELP = `Usage: inboxd faults set [--inbox INBOX | --label-prefix P] (--rules JSON | --file FILE | RULE FLAGS)
       inboxd faults list [--inbox INBOX | --label-prefix P]
       inboxd faults clear [--inbox INBOX | --label-prefix P]
       inboxd faults timeline INBOX [--since TIME] [--limit N]

Sets, lists and clears SMTP fault rules (README "Fault rules"): without --inbox or --label-prefix, the global rules
(an unscoped admin key). "set" replaces the rules of that scope and prints them; "clear" deletes them. "timeline"
prints the faults that fired for mail to an inbox and the messages that arrived, oldest first.

Options:
${flagsHelp(FAULTS_FLAGS)}

${ENV_HELP}

${exitHelp(false)}

Examples (CI steps):
  inboxd faults set --inbox "$ADDR" --reply 451 --first 2      # refuse the first two tries, then accept
  inboxd faults set --label-prefix "ci-$CI_JOB_ID" --rate-limit 5/60
  inboxd faults set --rules '[{"stage":"data","action":{"type":"disconnect"},"mode":{"type":"every","n":3}}]'
  inboxd faults timeline "$ADDR" | jq '[.items[] | select(.type=="fault")] | length'
  inboxd faults clear --inbox "$ADDR"`;

function intOf(p: Parsed, name: string): number | undefined {
  const v = one(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw usage(`${name} must be a whole number (got '${v}')`);
  return Number(v);
}

/** The one rule the RULE FLAGS describe, or undefined when none is given. */
function ruleOfFlags(p: Parsed): Record<string, unknown> | undefined {
  const actions: Array<Record<string, unknown>> = [];
  const code = intOf(p, '--reply');
  if (code !== undefined) actions.push({ type: 'reply', code, enhanced: one(p, '--enhanced'), text: one(p, '--text') });
  if (has(p, '--disconnect')) actions.push({ type: 'disconnect' });
  const delay = intOf(p, '--delay');
  if (delay !== undefined) actions.push({ type: 'delay', ms: delay });
  const grey = intOf(p, '--greylist');
  if (grey !== undefined) actions.push({ type: 'greylist', retryAfterSeconds: grey });
  const rl = one(p, '--rate-limit');
  if (rl !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(rl);
    if (!m) throw usage(`--rate-limit must be N/S, e.g. 5/60 (got '${rl}')`);
    actions.push({ type: 'rate-limit', limit: Number(m[1]), windowSeconds: Number(m[2]) });
  }
  if (has(p, '--mailbox-full')) actions.push({ type: 'mailbox-full' });
  if (actions.length === 0) return undefined;
  if (actions.length > 1) throw usage('give one action: --reply, --disconnect, --delay, --greylist, --rate-limit or --mailbox-full');
  const first = intOf(p, '--first');
  const every = intOf(p, '--every');
  const prob = one(p, '--probability');
  const modes = [first !== undefined, every !== undefined, prob !== undefined].filter(Boolean).length;
  if (modes > 1) throw usage('give one mode: --first, --every or --probability');
  if (prob !== undefined && (Number.isNaN(Number(prob)) || one(p, '--seed') === undefined))
    throw usage('--probability takes a number 0-1 and needs --seed N');
  const mode =
    first !== undefined
      ? { type: 'first', n: first }
      : every !== undefined
        ? { type: 'every', n: every }
        : prob !== undefined
          ? { type: 'probability', p: Number(prob), seed: intOf(p, '--seed') }
          : undefined;
  const recipient = one(p, '--recipient');
  const sender = one(p, '--sender');
  const match = recipient || sender ? { recipient, sender } : undefined;
  const a = actions[0]!;
  const stage = one(p, '--stage') ?? (a.type === 'reply' || a.type === 'disconnect' || a.type === 'delay' ? 'rcpt' : undefined);
  return { stage, match, action: a, mode };
}

async function rulesOf(p: Parsed, stdin: () => Promise<Buffer>): Promise<unknown[]> {
  const inline = one(p, '--rules');
  const file = one(p, '--file');
  const flagged = ruleOfFlags(p);
  if ([inline !== undefined, file !== undefined, flagged !== undefined].filter(Boolean).length !== 1)
    throw usage('give the rules one way: --rules JSON, --file FILE, or one rule as flags (--reply 451 …); --rules [] clears');
  if (flagged) return [flagged];
  let text: string;
  if (inline !== undefined) text = inline;
  else if (file === '-') text = (await stdin()).toString('utf8');
  else
    try {
      text = await readFile(file!, 'utf8');
    } catch (e) {
      throw new ClientError('usage', `--file ${file}: ${(e as Error).message}`, EXIT.usage);
    }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw usage(`the rules are not JSON: ${(e as Error).message}`);
  }
  return Array.isArray(v) ? v : [v];
}

export async function faultsCommand(p: Parsed, client: Client, out: (s: string) => void, stdin: () => Promise<Buffer>): Promise<number> {
  const [sub, ...args] = p.positional;
  const inboxArg = one(p, '--inbox');
  const prefix = one(p, '--label-prefix');
  if (inboxArg !== undefined && prefix !== undefined) throw usage('give --inbox or --label-prefix, not both');
  const inboxPath = async () => `/v1/inboxes/${encodeURIComponent(await client.inboxId(inboxArg!))}/faults`;
  switch (sub) {
    case 'set': {
      if (args.length > 0) throw usage(`unexpected argument '${args[0]}'`);
      const rules = await rulesOf(p, stdin);
      const r =
        inboxArg !== undefined
          ? await client.request('PUT', await inboxPath(), { body: { rules } })
          : await client.request('PUT', '/v1/faults', { body: { rules, ...(prefix !== undefined ? { labelPrefix: prefix } : {}) } });
      out(JSON.stringify(r.body));
      return EXIT.ok;
    }
    case 'list':
    case 'clear': {
      if (args.length > 0) throw usage(`unexpected argument '${args[0]}'`);
      const method = sub === 'list' ? 'GET' : 'DELETE';
      const r =
        inboxArg !== undefined
          ? await client.request(method, await inboxPath())
          : await client.request(method, '/v1/faults', { query: { labelPrefix: prefix } });
      out(JSON.stringify(r.body));
      return EXIT.ok;
    }
    case 'timeline': {
      if (args.length !== 1) throw usage('give exactly one INBOX (an inbox id inb_… or its address)');
      const id = await client.inboxId(args[0]!);
      const r = await client.request('GET', `/v1/inboxes/${encodeURIComponent(id)}/timeline`, {
        query: { since: one(p, '--since'), limit: one(p, '--limit') },
      });
      out(JSON.stringify(r.body));
      return EXIT.ok;
    }
    default:
      throw usage(
        sub === undefined ? 'give a subcommand: set, list, clear or timeline' : `unknown subcommand '${sub}' (set, list, clear, timeline)`,
      );
  }
}
