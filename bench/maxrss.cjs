// Preloaded into a CLI run by bench/scale.bench.ts (`NODE_OPTIONS=--require bench/maxrss.cjs bin/roster.js ...`):
// writes the process's peak resident memory (bytes) to $ROSTER_MAXRSS_FILE when it exits.
const fs = require('node:fs');
process.on('exit', () => {
  if (process.env.ROSTER_MAXRSS_FILE) fs.writeFileSync(process.env.ROSTER_MAXRSS_FILE, String(process.resourceUsage().maxRSS * 1024));
});
