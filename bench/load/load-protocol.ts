/** The messages between the benchmark and its load-generating process (one JSON object per line each way). */

export interface LoadJob {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** Sends exactly this many requests instead of running for `seconds` (a count under callgrind, whose pace is slow). */
  amount?: number;
  /**
   * Sends every request with `X-Forwarded-For` naming one of this many client addresses, in turn (10.x.y.z), as a
   * trusted proxy in front of many clients would.
   */
  forwardedFor?: number;
  /** Sends the requests to these paths of `url`'s origin in turn, instead of `url`'s own (not with `forwardedFor`). */
  paths?: readonly string[];
}

export interface LoadResult {
  requests: number;
  /** Completed requests per second over the run. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** Answers that were not 2xx: a non-zero figure means the run measured the wrong thing (a tripped limit, say). */
  non2xx: number;
  /** Answers 429 (refusals of a rate limit). */
  refused: number;
  errors: number;
}
