// Preloaded into a CLI run by bench/scale.bench.ts (`NODE_OPTIONS=--require bench/maxrss.cjs bin/roster.js ...`):
// writes the process's peak resident memory (bytes) to $ROSTER_MAXRSS_FILE when it exits, its CPU time (ms) to $ROSTER_MAXRSS_FILE.cpu.
const fs = require('node:fs');
process.on('exit', () => {
  if (!process.env.ROSTER_MAXRSS_FILE) return;
  fs.writeFileSync(process.env.ROSTER_MAXRSS_FILE, String(process.resourceUsage().maxRSS * 1024));
  // And its CPU time (ms, user + system, every thread): steadier than wall-clock time on a shared machine.
  const cpu = process.cpuUsage();
  fs.writeFileSync(`${process.env.ROSTER_MAXRSS_FILE}.cpu`, String((cpu.user + cpu.system) / 1000));
});
