// A latency histogram whose observe() only bumps numbers in a preallocated array (prom-client's own histogram builds
// a label object and a closure per observation). It is handed to the prom-client registry as a metric whose get()
// answers in prom-client's value format, so the text exposition is still prom-client's.
import type { Metric } from 'prom-client';

export class LatencyHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly bounds: readonly number[];
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(name: string, help: string, bounds: readonly number[]) {
    this.name = name;
    this.help = help;
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(seconds: number): void {
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** Cumulative buckets, then _sum and _count: what the registry prints. */
  async get() {
    const values: Array<{ value: number; labels: Record<string, string | number>; metricName: string }> = [];
    let cumulative = 0;
    for (let i = 0; i <= this.bounds.length; i++) {
      cumulative += this.counts[i]!;
      values.push({
        value: cumulative,
        labels: { le: i < this.bounds.length ? this.bounds[i]! : '+Inf' },
        metricName: `${this.name}_bucket`,
      });
    }
    values.push({ value: this.sum, labels: {}, metricName: `${this.name}_sum` });
    values.push({ value: this.count, labels: {}, metricName: `${this.name}_count` });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The registry's type asks for one of its own classes; it only ever calls name, get() and type. */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}
