/**
 * The JobQueue contract: every adapter's spec file calls `jobQueueContract` with a factory, so the in-process
 * queue and BullMQ answer to the same tests. Backoff delays are kept small to keep the suite fast.
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobQueue, RetryPolicy } from '../../shared/ports/job-queue.ts';

export type JobQueueFactory = (policy: RetryPolicy) => JobQueue | Promise<JobQueue>;

/** Polls until `check` holds, failing after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

export function jobQueueContract(name: string, factory: JobQueueFactory): void {
  describe(`JobQueue contract: ${name}`, function () {
    const open: JobQueue[] = [];
    const create = async (policy: RetryPolicy = { attempts: 3, backoffMs: 20 }) => {
      const queue = await factory(policy);
      open.push(queue);
      return queue;
    };
    afterEach(async function () {
      await Promise.all(open.splice(0).map((queue) => queue.close()));
    });

    it('runs every added job, handing the handler its name', async function () {
      const queue = await create();
      const ran: string[] = [];
      queue.process(async (jobName) => {
        ran.push(jobName);
      });
      await queue.add('watches', 'watches');
      await queue.add('serials', 'serials');
      await eventually(() => ran.length === 2, 'both jobs ran');
      expect([...ran].sort()).to.deep.equal(['serials', 'watches']);
    });

    it('adds a job only once while one with the same id is waiting, and depth counts the waiting jobs', async function () {
      const queue = await create();
      await queue.add('watches', 'watches');
      await queue.add('watches', 'watches');
      await queue.add('watches', 'watches');
      await queue.add('serials', 'serials');
      expect(await queue.depth()).to.equal(2);
      const ran: string[] = [];
      queue.process(async (jobName) => {
        ran.push(jobName);
      });
      await eventually(async () => ran.length === 2 && (await queue.depth()) === 0, 'the two jobs ran');
      await sleep(100);
      expect([...ran].sort()).to.deep.equal(['serials', 'watches']);
    });

    it('retries a failing job with growing delays, then reports it failed with the attempts made', async function () {
      const queue = await create({ attempts: 3, backoffMs: 40 });
      const attemptsAt: number[] = [];
      const failures: { name: string; message: string; attemptsMade: number }[] = [];
      queue.onFailed((jobName, error, attemptsMade) => failures.push({ name: jobName, message: error.message, attemptsMade }));
      queue.process(async () => {
        attemptsAt.push(Date.now());
        throw new Error('cannot apply event 42');
      });
      await queue.add('watches', 'watches');
      await eventually(() => failures.length === 1, 'the job is reported failed');
      await sleep(150);
      expect(failures).to.deep.equal([{ name: 'watches', message: 'cannot apply event 42', attemptsMade: 3 }]);
      expect(attemptsAt).to.have.length(3);
      const [first, second, third] = attemptsAt as [number, number, number];
      expect(second - first).to.be.at.least(35);
      expect(third - second).to.be.at.least(75);
    });

    it('does not report a job that succeeds on a retry', async function () {
      const queue = await create({ attempts: 3, backoffMs: 10 });
      let attempts = 0;
      const failures: string[] = [];
      queue.onFailed((jobName) => failures.push(jobName));
      queue.process(async () => {
        attempts++;
        if (attempts === 1) throw new Error('transient');
      });
      await queue.add('watches', 'watches');
      await eventually(() => attempts === 2, 'the retry ran');
      await sleep(100);
      expect(attempts).to.equal(2);
      expect(failures).to.deep.equal([]);
    });

    it('never runs one job id twice at once, and an add during a run is not lost', async function () {
      const queue = await create();
      let active = 0;
      let maxActive = 0;
      let runs = 0;
      // The first run lasts until the adds made during it are all in, however long they take on a loaded machine: a
      // run that ended before the last add would rightly be followed by two runs, not one.
      let addsIn!: () => void;
      const allAdded = new Promise<void>((resolve) => { addsIn = resolve; });
      queue.process(async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await (runs === 0 ? allAdded : sleep(120));
        active--;
        runs++;
      });
      await queue.add('watches', 'watches');
      await eventually(() => active === 1, 'the first run started');
      for (let i = 0; i < 5; i++) await queue.add('watches', 'watches');
      addsIn();
      await eventually(() => runs >= 2 && active === 0, 'a follow-up run ran');
      await sleep(200);
      expect(maxActive).to.equal(1);
      expect(runs).to.equal(2);
    });

    it('a follow-up added during a run that fails never runs beside the retries of that run', async function () {
      const queue = await create({ attempts: 2, backoffMs: 60 });
      let active = 0;
      let maxActive = 0;
      let runs = 0;
      queue.process(async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        runs++;
        await sleep(80);
        active--;
        if (runs === 1) throw new Error('first attempt fails');
      });
      await queue.add('watches', 'watches');
      await eventually(() => active === 1, 'the first run started');
      await queue.add('watches', 'watches');
      await eventually(() => runs >= 3 && active === 0, 'the retry and the follow-up ran', 5_000);
      await sleep(200);
      expect(maxActive).to.equal(1);
      expect(runs).to.equal(3);
    });

    it('close waits for the running job to finish', async function () {
      const queue = await create();
      let finished = false;
      let started = false;
      queue.process(async () => {
        started = true;
        await sleep(200);
        finished = true;
      });
      await queue.add('watches', 'watches');
      await eventually(() => started, 'the job started');
      await queue.close();
      expect(finished).to.equal(true);
    });
  });
}
