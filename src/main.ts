// The command line: argv + environment → Config → start. Nothing else lives here.
import path from 'node:path';
import { loadConfig, optionsHelp, UsageError } from './config.ts';
import { didYouMean } from './lib/suggest.ts';
import { StartError, startServer } from './server/start.ts';
import { buildInfo, codeCacheState, NAME, RELEASE, VERSION } from './version.ts';

const HELP = `${NAME} ${RELEASE} (API ${VERSION}) — disposable inboxes for AI agents and CI runs

Usage:
  ${NAME} [serve] [options]            run the SMTP listener and the HTTP API (the default)
  ${NAME} extract FILE.eml [--service NAME]
                                     print, as JSON, the code/link/action the service would extract
  ${NAME} extract (--preset 2fa|invoice|receipt | --schema FILE.json) FILE.eml
                                     print, as JSON, the structured fields the built-in engine extracts
                                     (the same answer as POST …/messages/:id/extract with engine builtin)
  ${NAME} wait INBOX [--timeout S] [--subject T] …
                                     wait for a message in a running server's inbox; print it as JSON
  ${NAME} verify (--service NAME | --inbox INBOX) [--timeout S] …
                                     get an address, or wait for the code/link of a signup mail (JSON)
  ${NAME} simulate INBOX [--scenario otp|magic_link|…]
                                     deliver a simulated message into an inbox (JSON)
  ${NAME} send INBOX --to ADDR [--subject T] [--text T] [--attach FILE] …
                                     send mail from an inbox (JSON)
  ${NAME} faults set|list|clear|timeline [--inbox INBOX | --label-prefix P] …
                                     SMTP fault rules for retry tests, and an inbox's timeline (JSON)
  ${NAME} check (MESSAGE --inbox INBOX | FILE.eml | FILE.html | --inbox INBOX --wait) [--fail-on EXPR] …
                                     run message checks; text, json, junit or sarif report; exit 0 passed ·
                                     1 failed · 2 could not check · 3 timed out
                                     (these six talk to a running server: --url / INBOXD_URL, --key / INBOXD_KEY;
                                     exit 0 ok · 1 error · 2 usage · 3 timeout · 4 no value for --print, except
                                     check's own codes above;
                                     ${NAME} COMMAND --help for each)
  ${NAME} sendmail [-t] [-i] [-f ADDR] [RCPT…] < message
                                     a drop-in for /usr/sbin/sendmail (PHP mail(), cron): deliver one message from
                                     stdin to a running inboxd over SMTP (--smtp HOST:PORT / INBOXD_SMTP; default the
                                     smtp port in <data-dir>/ports.json); also runs as a symlink named sendmail;
                                     exit 0 ok · 64 usage · 69 refused · 75 try again later (sysexits)
  ${NAME} --help | help                this text
  ${NAME} --version                    the release version (one line)
  ${NAME} version                      release version, commit, build date, API version and runtime

Options for serve (flag > environment variable > default):
${optionsHelp()}

Environment only:
  INBOXD_ADMIN_KEY                   this exact string becomes an admin key of the default team; when unset and
                                     the store has no key, one is generated, printed once and saved to
                                     <data-dir>/admin.key (mode 0600); 24-256 characters of A-Z a-z 0-9 . _ ~ + / = -
  INBOXD_MAILGUN_SIGNING_KEY         Mailgun's webhook signing key; required by --inbound-webhooks mailgun
  INBOXD_BILLING_SECRET_KEY          secret of the Stripe-compatible billing API (with --billing-api-base)
  INBOXD_NATIVE_CACHE_DIR            where the single executable unpacks its SQLite addon (default: a per-user
                                     folder under the system temp dir; set it when /tmp is mounted noexec)

Exit codes: 0 clean stop · 1 runtime failure · 2 bad usage or configuration.
Signals: SIGTERM/SIGINT stop accepting, finish in-flight work and exit 0 (also when sent during start-up);
         a repeated SIGTERM is ignored, a second SIGINT exits 130 at once, and a stop that takes over 10 s
         exits 1.
Docs: GET /v1 (discovery) and GET /v1/openapi.json on the running server.`;

const COMMANDS = ['serve', 'extract', 'wait', 'verify', 'simulate', 'send', 'faults', 'check', 'sendmail', 'help', 'version'];

/**
 * The name `ps`, `top`, `ss -p` and `pgrep inboxd` show (else Node's main thread name, `MainThread`): `inboxd serve`
 * for the server, `inboxd wait` etc. for a command. Linux keeps 15 bytes of it as the process name (comm).
 */
function nameProcess(argv: string[]): void {
  const [first] = argv;
  const command = first === undefined || first.startsWith('-') ? 'serve' : first;
  process.title = `${NAME} ${COMMANDS.includes(command) ? command : 'serve'}`;
}

async function main(argv: string[]): Promise<number> {
  nameProcess(argv);
  // Run through a symlink named sendmail (`ln -s inboxd /usr/local/bin/sendmail`): behave as sendmail.
  if (/^sendmail(\.exe)?$/i.test(path.basename(process.argv0))) {
    const { sendmailCommand } = await import('./client/sendmail.ts');
    return sendmailCommand(argv);
  }
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(RELEASE + '\n');
    return 0;
  }
  if (first === 'version') {
    const b = buildInfo();
    process.stdout.write(
      `${NAME} ${b.release}\ncommit ${b.commit ?? 'unknown'}\nbuilt ${b.date ?? '- (running from source)'}\n` +
        `api ${VERSION}\nnode ${process.version} ${process.platform}-${process.arch}\ncode cache ${codeCacheState()}\n`,
    );
    return 0;
  }
  if (first === 'wait' || first === 'verify' || first === 'simulate' || first === 'send' || first === 'faults' || first === 'check') {
    const { clientCommand } = await import('./client/index.ts');
    return clientCommand(first, rest);
  }
  if (first === 'sendmail') {
    const { sendmailCommand } = await import('./client/sendmail.ts');
    return sendmailCommand(rest);
  }
  if (first === 'extract') {
    const { extractCommand } = await import('./cli/extract.ts');
    return extractCommand(rest);
  }
  const serveArgs = first === 'serve' ? rest : argv;
  if (serveArgs.includes('--help') || serveArgs.includes('-h')) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (first !== undefined && first !== 'serve' && !first.startsWith('-')) {
    throw new UsageError(`unknown command '${first}'${didYouMean(first, COMMANDS)} (commands: ${COMMANDS.join(', ')})`);
  }
  const config = loadConfig(serveArgs);
  // The handlers go in before the start: a script that waits for ports.json and then sends SIGTERM must get the
  // clean stop (exit 0, lock removed) even when the signal lands in the instant after the file is written. Without
  // a handler the kernel's default action would kill the process with the lock still on disk.
  let signalled = false;
  let stopStarted: (() => void) | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) {
      // A repeated SIGTERM (an orchestrator, a script stopping twice) must not meet the default action half-way
      // through the stop; a second Ctrl-C is a person asking to leave now.
      if (sig !== 'SIGINT') return;
      process.stderr.write(`${NAME}: second SIGINT; exiting without finishing in-flight work\n`);
      process.exit(130);
    }
    signalled = true;
    // Also bounds a start that hangs (a database that never answers): the signal still ends the process.
    const force = setTimeout(() => {
      process.stderr.write(`${NAME}: did not stop within 10 s after ${sig}; exiting\n`);
      process.exit(1);
    }, 10_000);
    force.unref();
    stopStarted?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const server = await startServer(config);
  const code = await new Promise<number>((resolve) => {
    stopStarted = () =>
      server.stop().then(
        () => resolve(0),
        () => resolve(1),
      );
    if (signalled) stopStarted();
  });
  // Exit now rather than let the event loop run dry: Node's teardown after a dry loop closes the signal handlers, and
  // a repeated SIGTERM landing in that instant (a script or orchestrator that stops twice) met the default action —
  // killed by the signal, though the stop had finished (1 start in 40 here). Everything is stopped and stdout and
  // stderr are written synchronously on Linux, so nothing is cut short.
  process.exit(code);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`${NAME}: ${e.message}\n`);
      process.exitCode = 2;
    } else if (e instanceof StartError) {
      process.stderr.write(`${NAME}: ${e.message}\n`);
      // A start that failed has nothing left to finish; a half-open connection (a PostgreSQL login that failed
      // inside the driver) must not keep the process alive after the message.
      process.exit(e.exitCode);
    } else {
      process.stderr.write(`${NAME}: fatal: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exitCode = 1;
    }
  },
);
