/**
 * A read store a test steers, for the projection guarantee tests (issue 20): one wrapper per simulated process over
 * one shared store, as several projector processes share one MongoDB. Every call of the port, and of the objects
 * it hands out (a rebuild's generation), passes through it, so a test can:
 * - stop a call before or after it runs until the test lets it go (`gate`): a worker paused mid-batch, a reader
 *   looking between two steps of a rebuild;
 * - make every call fail as a MongoDB outage does (`outage` / `heal`), or for good (`kill`: the process died);
 * - cut a bulk write (of the store or of a generation) into its single writes, which is what an ordered MongoDB
 *   bulk is (not atomic), so another writer can land between two of them (`splitWrites`).
 * It forwards by name (a Proxy), so methods the port gains are steered the same way without changes here.
 */
import { MongoNetworkError } from 'mongodb';
import type { ReadStore } from '../../shared/ports/read-store.ts';

export interface Call {
  /** `find`, `write`...; a method of an object a call returned is prefixed with its maker: `beginRebuild.switchTo`. */
  method: string;
  args: readonly unknown[];
}

export interface Interception {
  method: string | RegExp;
  when?: (call: Call) => boolean;
  /** Runs before the call (default) or after it has resolved; the call waits for it. */
  stage?: 'before' | 'after';
  run: (call: Call) => Promise<void> | void;
  /** How many matching calls it steers; unlimited by default. */
  times?: number;
}

/** The port's synchronous methods (a generation's handle): never stopped, but what they hand out is steered. */
const SYNCHRONOUS = /(^|\.)generation$/;
/** Calls that change nothing: the rest count as writes. */
const READS = /(^|\.)(find|count|get|getMany|getStored|readControl|ping|close)$/;
export const isRead = (call: Call): boolean => READS.test(call.method);

export interface ControlledReadStore {
  readonly store: ReadStore;
  /** Every call made, in order (method and arguments), for a test to look at. */
  readonly calls: Call[];
  intercept(interception: Interception): void;
  /** Every call fails as a store that cannot be reached, until `heal`. */
  outage(): void;
  heal(): void;
  /** Every call fails from now on, as a process that died would never call again. */
  kill(): void;
  /** Bulk writes of `write` are sent as single writes, one call each (intercepted one by one). */
  splitWrites(on: boolean): void;
}

/** The error the MongoDB driver throws when the server cannot be reached. */
export const unreachable = (): Error => new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017 (injected outage)');

export class ProcessDied extends Error {
  constructor() {
    super('this simulated process was killed');
  }
}

export function controlledReadStore(inner: ReadStore): ControlledReadStore {
  const calls: Call[] = [];
  const interceptions: Interception[] = [];
  let down = false;
  let dead = false;
  let split = false;

  const matching = (call: Call, stage: 'before' | 'after'): Interception[] => interceptions.filter((i) =>
    (i.stage ?? 'before') === stage && (typeof i.method === 'string' ? i.method === call.method : i.method.test(call.method))
    && (i.times === undefined || i.times > 0) && (i.when?.(call) ?? true));

  const steer = async (call: Call, stage: 'before' | 'after'): Promise<void> => {
    for (const interception of matching(call, stage)) {
      if (interception.times !== undefined) interception.times -= 1;
      await interception.run(call);
    }
  };

  const invoke = async (prefix: string, target: object, name: string, fn: (...args: unknown[]) => unknown, args: unknown[]): Promise<unknown> => {
    const method = `${prefix}${name}`;
    // `write(collection, ops)` of the store, `write(ops, options)` of a generation.
    const opsAt = method === 'write' ? 1 : name === 'write' ? 0 : -1;
    const ops = args[opsAt];
    if (split && Array.isArray(ops) && ops.length > 1) {
      for (const op of ops as unknown[]) await invoke(prefix, target, name, fn, args.map((arg, i) => (i === opsAt ? [op] : arg)));
      return undefined;
    }
    const call: Call = { method, args };
    if (dead) throw new ProcessDied();
    await steer(call, 'before');
    if (dead) throw new ProcessDied();
    if (down) throw unreachable();
    calls.push(call);
    const result = await fn.apply(target, args);
    await steer(call, 'after');
    if (dead) throw new ProcessDied();
    return wrap(result, `${method}.`);
  };

  function wrap<T>(value: T, prefix: string): T {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const hasMethods = Object.values(value).some((v) => typeof v === 'function');
    if (!hasMethods) return value;
    return new Proxy(value, {
      get(target, key, receiver) {
        const property: unknown = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || typeof property !== 'function') return property;
        const fn = property as (...a: unknown[]) => unknown;
        if (SYNCHRONOUS.test(`${prefix}${key}`)) {
          return (...args: unknown[]) => {
            if (dead) throw new ProcessDied();
            return wrap(fn.apply(target, args), `${prefix}${key}.`);
          };
        }
        return (...args: unknown[]) => invoke(prefix, target, key, fn, args);
      },
    });
  }

  return {
    store: wrap(inner, ''),
    calls,
    intercept: (interception) => { interceptions.push(interception); },
    outage: () => { down = true; },
    heal: () => { down = false; },
    kill: () => { dead = true; },
    splitWrites: (on) => { split = on; },
  };
}

/** A point where a call waits until the test lets it go. */
export interface Gate {
  /** Resolves once a call has reached the gate. */
  readonly reached: Promise<void>;
  /** What an interception runs: stops there until `open`. */
  pass(): Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let arrive: () => void = () => {};
  let release: () => void = () => {};
  const reached = new Promise<void>((resolve) => { arrive = resolve; });
  const opened = new Promise<void>((resolve) => { release = resolve; });
  return {
    reached,
    pass: () => {
      arrive();
      return opened;
    },
    open: () => release(),
  };
}

/** `promise`, or a rejection naming `what` after `ms` (a test that would hang fails instead). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
