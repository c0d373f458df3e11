import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { jobQueueContract } from './job-queue.contract.ts';

jobQueueContract('in process', (policy) => createInlineJobQueue(policy));
