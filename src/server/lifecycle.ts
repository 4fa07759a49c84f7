// The server's running parts as one ordered list: started front to back, stopped back to front. A part that depends
// on another comes after it, so it is stopped first; the stop order is never written down separately.
import type { Logger } from '../log.ts';

/** A part of the running server. `start` may bind, load or schedule; `stop` releases what `start` (or wiring) took. */
export interface Component {
  name: string;
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

export class Lifecycle {
  private readonly started: Component[] = [];
  private stopping: Promise<void> | null = null;

  private readonly components: readonly Component[];
  private readonly log: Pick<Logger, 'debug' | 'error'>;

  constructor(components: readonly Component[], log: Pick<Logger, 'debug' | 'error'>) {
    this.components = components;
    this.log = log;
  }

  /** Starts every component in order. When one fails, those already started are stopped (in reverse) and it throws. */
  async start(): Promise<void> {
    for (const c of this.components) {
      try {
        await c.start?.();
      } catch (e) {
        await this.stop();
        throw e;
      }
      this.started.push(c);
      this.log.debug('component started', { component: c.name });
    }
  }

  /** Stops the started components in reverse start order; a failing stop is logged and the next one still runs. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (let c = this.started.pop(); c; c = this.started.pop()) {
        try {
          await c.stop?.();
          this.log.debug('component stopped', { component: c.name });
        } catch (e) {
          this.log.error('error while stopping', { component: c.name, err: e as Error });
        }
      }
    })();
    return this.stopping;
  }
}
