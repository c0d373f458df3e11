/** Money is integer cents inside the service and euros (a JSON number, at most two decimals) at the edge. */
export function centsToEuros(cents: number): number {
  return cents / 100;
}

/** Euros as typed by a person or sent by a client, to integer cents; throws on more than two decimals. */
export function eurosToCents(euros: number): number {
  const cents = Math.round(euros * 100);
  if (!Number.isFinite(euros) || Math.abs(cents - euros * 100) > 1e-6) {
    throw new RangeError(`${euros} is not an amount in euros with at most two decimals`);
  }
  return cents;
}
