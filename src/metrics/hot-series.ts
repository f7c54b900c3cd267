// Figures recorded on the hot path of every quote (each venue answer, over a hundred per quote on a busy pair):
// plain counters in arrays, turned into Prometheus text only when scraped. prom-client hashes the label set on every
// observation (over a microsecond each), which a quote would pay a hundred times.

/** One labelled series: its count, sum and bucket counts (not cumulative; the exposition sums them). */
export interface HotSeries {
  observe(value: number): void;
}

interface Series extends HotSeries {
  labels: ReadonlyArray<readonly [string, string]>;
  count: number;
  sum: number;
  buckets: number[];
}

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (pairs: ReadonlyArray<readonly [string, string]>) => pairs.map(([k, v]) => `${k}="${escape(v)}"`).join(',');
/** Prometheus writes bucket bounds and values as Go does: integers without a dot, +Inf for the last bucket. */
const num = (v: number) => (v === Infinity ? '+Inf' : String(v));

/**
 * A histogram (`<name>_bucket`, `_sum`, `_count`) and, beside it, a counter of the same observations (`counterName`),
 * over label sets fixed by the caller. Series are made on first use and kept: label values must come from closed sets.
 */
export class HotHistogram {
  readonly #series = new Map<string, Series>();
  readonly #bounds: readonly number[];

  constructor(
    readonly name: string,
    readonly help: string,
    bounds: readonly number[],
    readonly counter: { name: string; help: string },
  ) {
    this.#bounds = [...bounds].sort((a, b) => a - b);
  }

  /** The series of these label values (look it up once and keep it where the values are fixed). */
  series(labels: Readonly<Record<string, string>>): HotSeries {
    const pairs = Object.entries(labels);
    const key = labelText(pairs);
    let s = this.#series.get(key);
    if (!s) {
      const bounds = this.#bounds;
      const created: Series = {
        labels: pairs,
        count: 0,
        sum: 0,
        buckets: new Array<number>(bounds.length + 1).fill(0),
        observe(value) {
          created.count++;
          created.sum += value;
          let i = 0;
          while (i < bounds.length && value > bounds[i]!) i++;
          created.buckets[i]!++;
        },
      };
      s = created;
      this.#series.set(key, s);
    }
    return s;
  }

  /** The two families in the text format, each series with `extra` labels (the registry's default labels). */
  exposition(extra: Readonly<Record<string, string>>): string {
    const extraPairs = Object.entries(extra);
    const counter = [`# HELP ${this.counter.name} ${this.counter.help}`, `# TYPE ${this.counter.name} counter`];
    const histogram = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.#series.values()) {
      const labels = labelText([...s.labels, ...extraPairs]);
      counter.push(`${this.counter.name}{${labels}} ${s.count}`);
      let cumulative = 0;
      [...this.#bounds, Infinity].forEach((bound, i) => {
        cumulative += s.buckets[i]!;
        histogram.push(`${this.name}_bucket{le="${num(bound)}",${labels}} ${cumulative}`);
      });
      histogram.push(`${this.name}_sum{${labels}} ${s.sum}`);
      histogram.push(`${this.name}_count{${labels}} ${s.count}`);
    }
    return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`;
  }
}
