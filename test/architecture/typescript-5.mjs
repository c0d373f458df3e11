/**
 * Preloaded (`node --import`) by the dependency check alone: dependency-cruiser parses TypeScript through the
 * `typescript` package's JavaScript API, which TypeScript 7, this project's compiler, does not have. In that process
 * `typescript` resolves to TypeScript 5 (devDependency `typescript-5`), for its require and import calls alike.
 */
import Module, { register } from 'node:module';

const toTypeScript5 = (specifier) => specifier.replace(/^typescript(?=\/|$)/, 'typescript-5');

register(new URL('./typescript-5-hooks.mjs', import.meta.url));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, toTypeScript5(request), ...rest);
};
