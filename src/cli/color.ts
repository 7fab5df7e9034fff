import { ConfigError } from '../errors.js';

export const COLOR_MODES = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

/**
 * Whether to colour a stream (pure). `--color always|never` wins; with `auto` (the default), the
 * conventions of https://no-color.org and https://force-color.org: NO_COLOR set to anything non-empty
 * turns colour off, FORCE_COLOR turns it on where there is no terminal (CI logs: GitHub Actions shows
 * ANSI colours), except FORCE_COLOR=0 or false, which turns it off; otherwise colour on a terminal only.
 * NO_COLOR wins over FORCE_COLOR: the user who asked for no colour asked for the stronger thing.
 */
export function decideColor(mode: ColorMode, env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force.toLowerCase() === 'false');
  return isTTY;
}

let chosen: ColorMode = 'auto';

/** Set once by the top-level `--color` option (src/cli/main.ts). */
export function setColorMode(value: string | undefined): void {
  if (value === undefined) return;
  if (!(COLOR_MODES as readonly string[]).includes(value)) {
    throw new ConfigError(`--color must be ${COLOR_MODES.join(', ')}, got '${value}'`);
  }
  chosen = value as ColorMode;
}

/** Whether output written to `stream` is coloured, by `--color`, NO_COLOR, FORCE_COLOR and the terminal. */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return decideColor(chosen, process.env, stream.isTTY === true);
}
