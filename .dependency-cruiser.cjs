/**
 * The layering of ARCHITECTURE.md ("Layout"), checked by the test suite (test/architecture/layers.test.ts): the
 * sides (read-api, projector, services) use shared and never each other; shared uses none of them; production code
 * uses no test or bench code; no cycles. Only the entry points at the top (main.ts, all-in-one.ts) wire sides
 * together; each side's own process main wires that side alone.
 */
const SIDES = ['read-api', 'projector', 'services'];
const TOP = '^[^/]+\\.ts$';

module.exports = {
  forbidden: [
    ...SIDES.map((side) => ({
      name: `${side}-uses-no-other-side`,
      comment: `${side} depends on shared only: what two sides both need goes below both, wiring goes to an entry point`,
      severity: 'error',
      from: { path: `^${side}/` },
      to: { path: `^(${SIDES.filter((other) => other !== side).join('|')})/` },
    })),
    {
      name: 'shared-uses-no-side',
      comment: 'shared is the bottom layer: ports, adapters, events, projections, public answers, config',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: `^(${SIDES.join('|')})/|${TOP}` },
    },
    {
      name: 'production-uses-no-test-or-bench',
      severity: 'error',
      from: { path: `^(${SIDES.join('|')}|shared)/|${TOP}` },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-cycles',
      comment: 'a cycle makes two modules one: whichever loads first sees the other half-initialised',
      severity: 'error',
      from: { path: `^(${SIDES.join('|')}|shared)/` },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    // TypeScript 7 offers dependency-cruiser no JavaScript API to parse with; swc reads the sources instead.
    parser: 'swc',
  },
};
