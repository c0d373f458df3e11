/**
 * Given/when/then for deciders: given past events (and the context the handler would load), when a command,
 * then these new events, or this refusal.
 */
import { expect } from 'chai';
import type { DomainEvent } from '../../../../shared/events/index.ts';
import type { Decider } from '../../../../services/write/domain/decider.ts';
import { DomainError, type DomainErrorKind } from '../../../../services/write/domain/domain-error.ts';

export function deciderSpec<C, S, E extends DomainEvent, Ctx>(decider: Decider<C, S, E, Ctx>) {
  return {
    given(events: E[], context: Ctx) {
      return {
        when(command: C) {
          const state = events.reduce((s, e) => decider.evolve(s, e), decider.initialState());
          const decision = decider.decide(command, state, context);
          return {
            then(expected: E[]) {
              if (decision instanceof DomainError) expect.fail(`expected events, got refusal: ${decision.message}`);
              expect(decision).to.deep.equal(expected);
            },
            thenRefuses(kind: DomainErrorKind, message: string | RegExp) {
              if (!(decision instanceof DomainError)) expect.fail(`expected a refusal, got ${JSON.stringify(decision)}`);
              expect(decision.kind).to.equal(kind);
              if (typeof message === 'string') expect(decision.message).to.equal(message);
              else expect(decision.message).to.match(message);
            },
          };
        },
      };
    },
  };
}
