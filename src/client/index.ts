// The client commands (`inboxd wait|verify|simulate|send|faults|check`): talk to a running inboxd over its HTTP API,
// print JSON on stdout, errors on stderr, and exit with a code a shell can test (0 ok, 1 error, 2 usage, 3 timeout,
// 4 no value for --print).
import { ClientError, EXIT, type FlagSpec, type Parsed, parseArgs } from './args.ts';
import { CHECK_FLAGS, CHECK_HELP, checkCommand } from './check.ts';
import { FAULTS_FLAGS, FAULTS_HELP, faultsCommand } from './faults.ts';
import { Client } from './http.ts';
import { SEND_FLAGS, SEND_HELP, SIMULATE_FLAGS, SIMULATE_HELP, sendCommand, simulateCommand } from './send.ts';
import { VERIFY_FLAGS, VERIFY_HELP, verifyCommand, WAIT_FLAGS, WAIT_HELP, waitCommand } from './wait.ts';

export const CLIENT_COMMANDS = ['wait', 'verify', 'simulate', 'send', 'faults', 'check'] as const;
export type ClientCommand = (typeof CLIENT_COMMANDS)[number];

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  stdin: () => Promise<Buffer>;
}

type Run = (p: Parsed, c: Client, out: (s: string) => void, stdin: () => Promise<Buffer>, err: (s: string) => void) => Promise<number>;

const COMMANDS: Record<ClientCommand, { flags: Record<string, FlagSpec>; help: string; run: Run }> = {
  wait: { flags: WAIT_FLAGS, help: WAIT_HELP, run: waitCommand },
  verify: { flags: VERIFY_FLAGS, help: VERIFY_HELP, run: verifyCommand },
  simulate: { flags: SIMULATE_FLAGS, help: SIMULATE_HELP, run: simulateCommand },
  send: { flags: SEND_FLAGS, help: SEND_HELP, run: sendCommand },
  faults: { flags: FAULTS_FLAGS, help: FAULTS_HELP, run: faultsCommand },
  check: { flags: CHECK_FLAGS, help: CHECK_HELP, run: checkCommand },
};

export async function clientCommand(cmd: ClientCommand, argv: string[], io: Partial<Io> = {}): Promise<number> {
  const stdout = io.stdout ?? ((s: string) => process.stdout.write(s));
  const stderr = io.stderr ?? ((s: string) => process.stderr.write(s));
  const env = io.env ?? process.env;
  const stdin = io.stdin ?? readStdin;
  const def = COMMANDS[cmd];
  try {
    const parsed = parseArgs(argv, def.flags, cmd);
    if (parsed.help) {
      stdout(def.help + '\n');
      return EXIT.ok;
    }
    const client = Client.from(parsed, env);
    return await def.run(
      parsed,
      client,
      (s) => stdout(s + '\n'),
      stdin,
      (s) => stderr(s + '\n'),
    );
  } catch (e) {
    if (e instanceof ClientError) {
      stderr(`inboxd ${cmd}: ${e.kind}: ${e.message}\n`);
      return e.exitCode;
    }
    stderr(`inboxd ${cmd}: error: ${(e as Error)?.stack ?? String(e)}\n`);
    return EXIT.error;
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
