/**
 * Refusals of the deciders. `kind` lets each edge choose its answer (the CLI an exit code, the admin API a status)
 * without parsing messages; the message is written for a person and names what was refused.
 */
export type DomainErrorKind = 'not_found' | 'conflict' | 'invalid';

export class DomainError extends Error {
  constructor(readonly kind: DomainErrorKind, message: string) {
    super(message);
    this.name = 'DomainError';
  }
}

/** `unknown watch FOO-1`, `unknown serial S`, ... */
export function unknown(what: string, id: string): DomainError {
  return new DomainError('not_found', `unknown ${what} ${id}`);
}

export function conflict(message: string): DomainError {
  return new DomainError('conflict', message);
}

export function invalid(message: string): DomainError {
  return new DomainError('invalid', message);
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
