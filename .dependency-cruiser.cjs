// The module map's import rules (docs/decisions/0012-module-boundaries.md), checked by
// dependency-cruiser: `npm run lint:deps` (CI) and tests/unit/architecture.test.ts (npm test) both
// read this file. Paths are relative to the repository root (or to a test's fixture tree).
//
// TypeScript is read by swc (`parser: 'swc'`, @swc/core): TypeScript 7 has no JavaScript compiler
// API, so dependency-cruiser's tsc extractor is unavailable. swc reads the .ts source itself, so
// type-only imports (`import type`, `export type … from`) are in the graph as 'type-only' without
// `tsPreCompilationDeps`, which only switches to the tsc extractor (and, without it, only prints the
// `missing-tsc-transpiler` warning). What swc does not report — a computed import(), an
// `import('…')` type — tests/support/architecture.ts forbids.

/** The platform layer: imports no module, host or dev code, not even a type (it owns ports). */
const PLATFORM = '^src/(lib|config|db|http|events|jobs|storage)/';
/** The host, the composition root. */
const HOST = ['^src/(app|main)[.]ts$', '^src/(host|cli)/', '^workers/'];
const DEV = '^src/dev/';
/** The Stripe SDK, resolved in node_modules or (in a fixture tree without node_modules) by its bare name. */
const STRIPE = '(^|/)node_modules/stripe/|^stripe$';
/** The shipped code, where a cycle is a fault (tests and scripts only ever import it). */
const SHIPPED = '^(src|workers|web/src)/';
/** Type-only dependencies: erased by the compiler, still a cycle between files. */
const TYPE_ONLY = ['type-only', 'type-import'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No file of src/, workers/ or web/src/ depends on itself through other files, at run time or through ' +
        'type-only imports: every file of a cycle is a change to all the others.',
      from: { path: SHIPPED },
      to: { circular: true, viaOnly: { path: SHIPPED } },
    },
    {
      name: 'module-internals',
      severity: 'error',
      comment: 'A module imports another module only through its index.ts (its whole public surface).',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$'] },
    },
    {
      name: 'module-internals-from-outside',
      severity: 'error',
      comment: 'The host, workers, the platform, tests and scripts reach a module only through its index.ts.',
      from: { pathNot: '^src/modules/' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index[.]ts$' },
    },
    {
      name: 'platform-layering',
      severity: 'error',
      comment:
        'The platform imports no module, host or dev code, not even a type: it declares the port it needs ' +
        '(PaymentsPort, MailerPort, ModuleServices) and the module implements it.',
      from: { path: PLATFORM },
      to: { path: ['^src/modules/', DEV, ...HOST] },
    },
    {
      name: 'module-layering',
      severity: 'error',
      comment: 'A module imports neither the host (app, main, host, cli, workers) nor dev code.',
      from: { path: '^src/modules/' },
      to: { path: [DEV, ...HOST] },
    },
    {
      name: 'workers-below-host',
      severity: 'error',
      comment:
        'Imports flow one way: the host (src/host, src/main.ts) starts the workers, and workers/ reaches the ' +
        'modules, events and platform, never the host (the handler map lives in workers/handlers.ts).',
      from: { path: '^workers/' },
      to: { path: ['^src/(app|main)[.]ts$', '^src/(host|cli)/'] },
    },
    {
      name: 'stripe-in-checkout',
      severity: 'error',
      comment:
        'Only the checkout module (and the dev emulator) imports stripe, even a type: other modules ask ' +
        'checkout through PaymentsPort (refundPayment, readPaymentMethod); docs/decisions/0012-module-boundaries.md.',
      from: { path: '^(src|workers)/', pathNot: ['^src/modules/checkout/', DEV] },
      to: { path: STRIPE },
    },
    {
      name: 'shipped-code-layering',
      severity: 'error',
      comment: 'Shipped code never imports the tests or the scripts.',
      from: { path: SHIPPED },
      to: { path: '^(tests|scripts)/' },
    },
    {
      name: 'dev-only',
      severity: 'error',
      comment:
        'src/dev (Stripe emulator, private redis-server, demo seeding) is loaded with import() where it is used, ' +
        'so a production start never loads it.',
      from: { pathNot: ['^src/dev/', '^tests/'] },
      to: { path: DEV, dependencyTypesNot: ['dynamic-import', ...TYPE_ONLY] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'A relative import names a file that exists.',
      from: {},
      to: { couldNotResolve: true, path: '^[.]{1,2}/' },
    },
    {
      name: 'web-features-app',
      severity: 'error',
      comment: 'A feature, lib and components do not import the app: the app composes features and passes what a screen needs.',
      from: { path: '^web/src/(features|lib|components)/' },
      to: { path: '^web/src/app/' },
    },
    {
      name: 'web-features-internals',
      severity: 'error',
      comment: 'A feature imports another feature only through its index; a shared piece moves to web/src/lib or components.',
      from: { path: '^web/src/features/([^/]+)/' },
      to: {
        path: '^web/src/features/[^/]+/',
        pathNot: ['^web/src/features/$1/', '^web/src/features/[^/]+/index[.]tsx?$'],
      },
    },
    {
      name: 'web-shared-no-features',
      severity: 'error',
      comment: 'lib and components import no feature.',
      from: { path: '^web/src/(lib|components)/' },
      to: { path: '^web/src/features/' },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: '(^|/)node_modules/' },
    // The Stripe SDK (its .js or, for a type import, its .d.ts) stays in the graph, not followed, for
    // the stripe-in-checkout rule.
    exclude: { path: ['(^|/)node_modules/(?!stripe/)', '(^|/)dist/', '^(?!.*node_modules/stripe/).*[.]d[.][cm]?ts$'] },
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
