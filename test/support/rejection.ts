/** The error a call throws (of `type`, when given: any other is thrown on); fails the test if it returns instead. */
export function thrownBy<E = unknown>(run: () => unknown, type?: abstract new (...args: never[]) => E): E {
  try {
    run();
  } catch (error) {
    if (type && !(error instanceof type)) throw error;
    return error as E;
  }
  throw new Error('expected an error, got a result');
}

/** The error a promise rejects with; fails the test if it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a result');
}
