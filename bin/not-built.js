'use strict';
// Loaded by a bin/ shim only when its bundle in dist/ cannot be loaded: a checkout where the programs
// were never built (the npm package ships them built), said in one sentence instead of a stack.
exports.explain = function explain(error, prog) {
  const missing = /Cannot find module '([^']*[\\/]dist[\\/](?:cli|mcp)[\\/][^']+)'/.exec(String(error && error.message))?.[1];
  if (!error || error.code !== 'MODULE_NOT_FOUND' || !missing) throw error;
  process.stderr.write(
    `${prog}: this copy of Heimdall has no built programs (${missing} is missing): in a checkout, run \`npm run build:cli\` (or \`bash scripts/setup.sh\`); the npm package ships them built\n`,
  );
  process.exitCode = 2;
};
