/**
 * A preload that runs a process with its wall clock offset, as a machine whose clock is wrong: `node --import
 * ./test/support/clock-offset.mjs ...` with `WATCHCAT_CLOCK_OFFSET_MS` (positive: ahead, negative: behind). It shifts
 * `Date.now()` and `new Date()` (no argument), the wall clock every part of the service reads; monotonic time
 * (`performance.now()`, timers) is left alone, as a wrong wall clock leaves it. The freshness and lease tests run
 * processes with clocks offset both ways: no rule may compare one process's clock with another's.
 */
const offset = Number(process.env.WATCHCAT_CLOCK_OFFSET_MS ?? 0);
if (!Number.isFinite(offset)) throw new Error(`WATCHCAT_CLOCK_OFFSET_MS must be a number of milliseconds, not ${process.env.WATCHCAT_CLOCK_OFFSET_MS}`);
if (offset !== 0) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class OffsetDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(realNow() + offset);
      else super(...args);
    }
    static now() {
      return realNow() + offset;
    }
  }
  globalThis.Date = OffsetDate;
}
