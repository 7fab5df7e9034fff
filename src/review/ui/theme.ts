/** Colours by meaning; with colour off (NO_COLOR, or not a terminal) every tone is plain text. */
export type Tone = 'title' | 'dim' | 'gain' | 'success' | 'warning' | 'error' | 'info' | 'accent';

const COLORS: Record<Tone, string | undefined> = {
  title: 'cyan',
  dim: 'gray',
  gain: 'green',
  success: 'green',
  warning: 'yellow',
  error: 'red',
  info: 'blue',
  accent: 'magenta',
};

export function colorOf(tone: Tone | undefined, color: boolean): string | undefined {
  return color && tone ? COLORS[tone] : undefined;
}
