/**
 * `answers_signed_total{outcome}`: answers to requests that asked for a signature, by outcome: `signed`,
 * `unsigned` (the request's `Accept-Signature` was ignored, or the answer was a 429, which is never signed) or
 * `failed` (signing threw; the front door answers 500). Counted around the signer, which only these requests reach.
 */
import { Counter, type Registry } from 'prom-client';
import type { AnswerSigner } from '../signing/sign-answers.ts';

export function countedSigner(sign: AnswerSigner, registry: Registry): AnswerSigner {
  const counter = new Counter({
    name: 'answers_signed_total', help: 'Answers to requests asking for a signature, by outcome (signed, unsigned, failed)',
    labelNames: ['outcome'], registers: [registry],
  });
  return (ctx) => {
    const signing = sign(ctx);
    if (signing === undefined) {
      counter.inc({ outcome: 'unsigned' });
      return undefined;
    }
    return signing.then(
      () => counter.inc({ outcome: 'signed' }),
      (error: unknown) => {
        counter.inc({ outcome: 'failed' });
        throw error;
      },
    );
  };
}
