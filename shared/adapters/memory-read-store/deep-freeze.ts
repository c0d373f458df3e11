/**
 * Freezes a document and everything it holds, so documents can be handed to readers without copying. Documents
 * are plain data, so `for...in` sees exactly their own keys; unlike `Object.values` it allocates nothing.
 */
export function deepFreeze<T>(value: T): T {
  if (isObject(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    if (Array.isArray(value)) {
      for (const inner of value as unknown[]) if (isObject(inner)) deepFreeze(inner);
    } else {
      for (const key in value) {
        const inner = value[key];
        if (isObject(inner)) deepFreeze(inner);
      }
    }
  }
  return value;
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}
