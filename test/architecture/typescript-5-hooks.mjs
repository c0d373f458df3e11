/** The module resolution hook of typescript-5.mjs: `typescript` imports resolve to TypeScript 5. */
export async function resolve(specifier, context, next) {
  return next(specifier.replace(/^typescript(?=\/|$)/, 'typescript-5'), context);
}
