import type { TargetOptions } from '../../usecases/target.js';
import { runInit } from '../../usecases/init.js';
import { nextSteps } from '../render-init.js';

export interface InitCommandOptions extends TargetOptions {
  force?: boolean;
  fromLive?: boolean;
  /** `dev,staging,prod`: the several-environments layout (src/usecases/init/environments.ts). */
  environments?: string;
}

/**
 * `roster init [DIR]` (src/usecases/init.ts): scaffolds a configuration repository (docs/ci.md), then lists
 * what it wrote and the next steps.
 */
export async function initCommand(dirArg: string | undefined, opts: InitCommandOptions): Promise<void> {
  const { dir, writes, pkg, denied, environments, existing, live, embeddedProblem } = await runInit(dirArg, opts);
  const width = Math.max(...writes.map((w) => w.file.length));
  const out = [
    `roster init: ${dir}`,
    ...writes.map((w) => `  ${w.verb.padEnd(8)} ${w.file.padEnd(width)}  ${w.what}`),
    '',
  ];
  out.push(...nextSteps(dir, pkg, denied, environments, existing, live, embeddedProblem));
  process.stdout.write(`${out.join('\n')}\n`);
}
