/**
 * Request counts and latencies per label set (method, route template, status) as plain numbers: what the metrics
 * middleware does on every request is a Map lookup and a few additions. The counter and histogram of
 * `http_requests_total` / `http_request_duration_seconds` read them when Prometheus scrapes (metrics.ts).
 */

interface RequestLabels {
  method: string;
  route: string;
  status: string;
}

interface RequestTally {
  labels: RequestLabels;
  count: number;
  /** Seconds, all observations together. */
  sum: number;
  /** Observations per bucket, not cumulative: the first upper bound at or above the value; above the last, none. */
  buckets: number[];
}

/**
 * What prom-client 15 keeps per label set of a histogram (`hashMap`, filled by `zero`): the public API adds one
 * observation at a time, so a tally of many is written into the values `zero` made.
 */
export interface HistogramValues {
  hashMap: Record<string, { labels: object; bucketValues: Record<number, number>; sum: number; count: number }>;
}

export class RequestTallies {
  readonly #byKey = new Map<string, RequestTally>();

  constructor(readonly upperBounds: readonly number[]) {}

  add(method: string, route: string, status: number, seconds: number): void {
    const key = `${status}${method} ${route}`;
    let tally = this.#byKey.get(key);
    if (tally === undefined) {
      tally = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: this.upperBounds.map(() => 0) };
      this.#byKey.set(key, tally);
    }
    tally.count += 1;
    tally.sum += seconds;
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i += 1) {
      if (seconds <= bounds[i]!) {
        tally.buckets[i]! += 1;
        break;
      }
    }
  }

  all(): IterableIterator<RequestTally> {
    return this.#byKey.values();
  }

  /** Writes every tally into the histogram's values for its labels (made by `zero` just before). */
  copyInto(histogram: HistogramValues): void {
    const byLabels = new Map<object, RequestTally>();
    for (const tally of this.#byKey.values()) byLabels.set(tally.labels, tally);
    for (const values of Object.values(histogram.hashMap)) {
      const tally = byLabels.get(values.labels);
      if (tally === undefined) continue;
      values.count = tally.count;
      values.sum = tally.sum;
      this.upperBounds.forEach((bound, i) => { values.bucketValues[bound] = tally.buckets[i]!; });
    }
  }
}
