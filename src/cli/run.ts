// Source entry used by tests (`node --import tsx src/cli/run.ts`); bin/roster.js runs the built copy.
import { main } from './main.js';

await main(process.argv);
