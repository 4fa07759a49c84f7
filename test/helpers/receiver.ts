// Local callback receivers for delivery tests: one that answers at once, or holds every request until released.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestServer } from './server.ts';

/** A receiver that holds every request open until release(), or answers at once. */
export class HoldingReceiver {
  readonly held: http.ServerResponse[] = [];
  readonly paths: string[] = [];
  /** When each request arrived (performance.now()), in the order of `paths`. */
  readonly arrivedAt: number[] = [];
  url = '';
  private readonly server: http.Server;
  private readonly hold: boolean;
  private waiters: Array<() => void> = [];

  constructor(hold: boolean) {
    this.hold = hold;
    this.server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.paths.push(req.url ?? '/');
        this.arrivedAt.push(performance.now());
        for (const w of this.waiters.splice(0)) w();
        if (this.hold) this.held.push(res);
        else res.writeHead(204).end();
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` requests have arrived (the test's own timeout bounds it). */
  async waitFor(count: number): Promise<void> {
    while (this.paths.length < count) await new Promise<void>((r) => this.waiters.push(r));
  }

  release(): void {
    for (const r of this.held.splice(0)) r.writeHead(204).end();
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export async function createInbox(s: TestServer, callbackUrl: string): Promise<{ inboxId: string; address: string }> {
  const r = await s.api('/v1/inboxes', { method: 'POST', json: { callbackUrl } });
  const text = await r.text();
  assert.equal(r.status, 201, text);
  return JSON.parse(text) as { inboxId: string; address: string };
}
