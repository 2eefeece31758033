/**
 * The import rules `npm test` checks (`npm run deps`): no cycles, and nothing imports upward. The
 * layers, top to bottom: the handlers (`functions/`), the composition (`shared/wiring/`), the HTTP
 * layer (`shared/middleware/`) and the adapters (`shared/adapters/`), the domains (`shared/deposits/`,
 * `shared/operator/`, `shared/sandbox/`), the provider client (`shared/provider/`), and the
 * primitives (the provider interface's schemas in `shared/provider/interface/`, money, IBANs, the clock, secrets).
 * The domains reach the world only through their ports: no middy, Powertools, AWS SDK or HTTP layer
 * (and no `fetch`, a global no import shows: `test/unit/import-rules.test.ts`).
 */
const domain = '^shared/(deposits|operator|sandbox)/';
const handlers = '^functions/';
const wiring = '^shared/wiring/';
const http = '^shared/middleware/';
const adapters = '^shared/adapters/';
const provider = '^shared/provider/[^/]+\\.ts$';
const primitives = '^shared/(provider/interface/|money\\.ts|iban\\.ts|clock\\.ts|secrets\\.ts)';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A module never imports itself back, however far round.',
      severity: 'error',
      from: { path: '^(shared|functions|infra)/' },
      to: { circular: true },
    },
    {
      name: 'domain-without-transport',
      comment: 'The domains know what a deposit is and how it moves; transport is in the layers above.',
      severity: 'error',
      from: { path: domain },
      to: {
        path: [
          '@middy/',
          '@aws-lambda-powertools/',
          '@aws-sdk/',
          'standardwebhooks',
          '^shared/logger\\.ts$',
          '^shared/metrics\\.ts$',
          http,
          adapters,
          wiring,
          handlers,
          '^infra/',
          // The APIs' wire schemas and the typed client: what crosses HTTP, above the use cases.
          '^shared/contracts/',
          '^shared/deposits-api/',
        ],
      },
    },
    {
      name: 'adapters-below-wiring',
      severity: 'error',
      from: { path: [adapters, http] },
      to: { path: [wiring, handlers, '^infra/'] },
    },
    {
      name: 'wiring-below-handlers',
      severity: 'error',
      from: { path: wiring },
      to: { path: [handlers, '^infra/'] },
    },
    {
      name: 'provider-client-below-domains',
      severity: 'error',
      from: { path: provider },
      to: { path: [domain, adapters, wiring, http, handlers, '^infra/'] },
    },
    {
      name: 'primitives-at-the-bottom',
      severity: 'error',
      from: { path: primitives },
      to: { path: [provider, domain, adapters, wiring, http, handlers, '^infra/'] },
    },
    {
      name: 'deposits-model-at-the-bottom',
      comment: 'The deposit, its messages and views import nothing else of the domain.',
      severity: 'error',
      from: { path: '^shared/deposits/model/' },
      to: { path: '^shared/deposits/(?!model/)' },
    },
    {
      name: 'deposits-ports-above-the-model',
      comment: 'The ports name the model and nothing that uses them.',
      severity: 'error',
      from: { path: '^shared/deposits/ports/' },
      to: { path: '^shared/deposits/(?!(model|ports)/)' },
    },
    {
      name: 'deposits-journey-below-its-users',
      comment:
        'How a deposit moves is used by the steps, the requests and the background work, never the other way.',
      severity: 'error',
      from: { path: '^shared/deposits/journey/' },
      to: { path: '^shared/deposits/(steps|requests|background|step-context\\.ts)' },
    },
    {
      name: 'deposits-steps-requests-background-apart',
      comment: 'The steps, the requests and the background work stand side by side: none imports another.',
      severity: 'error',
      from: { path: '^shared/deposits/(steps|requests|background)/' },
      to: { path: '^shared/deposits/(steps|requests|background)/', pathNot: '^shared/deposits/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
