#!/usr/bin/env node
// The one binary. `npm ci` builds dist/ through the `prepare` script.
import('../dist/cli/main.js')
  .then((m) => m.main(process.argv))
  .catch((err) => {
    console.error(
      err && err.code === 'ERR_MODULE_NOT_FOUND'
        ? 'roster: dist/ is missing; run `npm run build` (npm ci does it through `prepare`).'
        : err,
    );
    process.exitCode = 1;
  });
