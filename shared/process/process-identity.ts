/**
 * Which process answers (issue 42, item 7): the operations answers (`/healthz`, `/readyz`) and the "listening" log
 * line carry it, so whoever waits for a process to be ready can tell it from a neighbour answering on the same port.
 * The pid alone does not do: in containers every main is pid 1. The instance id is new at every start.
 */
import { randomBytes } from 'node:crypto';

interface ProcessIdentity {
  pid: number;
  instance: string;
}

export const PROCESS_IDENTITY: ProcessIdentity = Object.freeze({ pid: process.pid, instance: randomBytes(8).toString('hex') });
