// One pass at a time over a queue kept elsewhere (the store, memory): a request while a pass runs is remembered and
// makes one more pass after it, however many requests came. Used by the callback and the outbound delivery workers.
export class Pump {
  private readonly pass: () => Promise<void>;
  private readonly onError: (e: Error) => void;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(pass: () => Promise<void>, onError: (e: Error) => void) {
    this.pass = pass;
    this.onError = onError;
  }

  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.run();
        }
      });
  }

  /** A pass that starts over from the top clears the requests made so far: it will see what they asked about. */
  clearPending(): void {
    this.again = false;
  }

  /** Resolves when the pass running now (if any) has ended. */
  async idle(): Promise<void> {
    await this.running;
  }
}
