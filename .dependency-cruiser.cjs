/**
 * Dependency rules: a service never imports another service's code, packages never import services,
 * and nothing imports a package's internals past its entry point. Run: pnpm run depcheck
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cross-service-imports',
      comment: 'Services share code only through packages/; talk to another service over HTTP or the bus.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/([^/]+)/', pathNot: '^services/$1/' },
    },
    {
      name: 'packages-do-not-import-services',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      // Vite's virtual modules (virtual:*) exist only inside the frontend's bundler.
      to: { couldNotResolve: true, pathNot: '^virtual:' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|public)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    combinedDependencies: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
