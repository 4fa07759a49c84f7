// Binding the HTTP and SMTP ports, with the one-line errors a person can act on (CONTRACT §1: exit 1 at runtime,
// 2 for bad configuration), and closing them.
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Ingest } from '../ingest/ingest.ts';
import type { Logger } from '../log.ts';
import { type SmtpListener, type SmtpOptions, startSmtp } from '../smtp/listener.ts';

/** A start-up failure with the one line to print and the exit code (CONTRACT §1: 2 = bad config, 1 = runtime). */
export class StartError extends Error {
  override name = 'StartError';
  readonly exitCode: number;
  constructor(message: string, exitCode: 1 | 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

export function listenHttp(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(portError('--http-port', port, host, e));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Stops accepting; in-flight requests get a grace period, then long waits and streams are cut. */
export function closeHttp(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

export async function listenSmtp(opts: SmtpOptions, ingest: Ingest, log: Logger): Promise<SmtpListener> {
  try {
    return await startSmtp(opts, ingest, log);
  } catch (e) {
    throw portError('--smtp-port', opts.port, opts.host, e as NodeJS.ErrnoException);
  }
}

/** Starts a POP3 or IMAP listener, turning a bind failure into the one line naming its flag. */
export async function listenAccess<T>(
  flag: '--pop3-port' | '--imap-port',
  port: number,
  host: string,
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (e) {
    throw portError(flag, port, host, e as NodeJS.ErrnoException);
  }
}

function portError(flag: string, port: number, host: string, e: NodeJS.ErrnoException): StartError {
  const what = flag === '--smtp-port' ? 'the SMTP listener' : `listen on ${host}`;
  if (e.code === 'EADDRINUSE')
    return new StartError(`${flag} ${port}: the port is already in use on ${host}; choose another or use 0 for a free one`, 1);
  if (e.code === 'EACCES')
    return new StartError(
      flag === '--smtp-port'
        ? `${flag} ${port}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); try --smtp-port 2525`
        : `${flag} ${port}: permission denied (ports below 1024 need privileges); try a port above 1024`,
      1,
    );
  return new StartError(
    flag === '--smtp-port' ? `${flag} ${port}: cannot start ${what}: ${e.message}` : `${flag} ${port}: cannot ${what}: ${e.message}`,
    1,
  );
}

/** `<data-dir>/ports.json`: the bound ports, for scripts that started the server on port 0. */
export function writePorts(dataDir: string, ports: { http: number; smtp: number; pop3?: number; imap?: number }): void {
  const file = path.join(dataDir, 'ports.json');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(ports) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}
