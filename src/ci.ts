/**
 * Whether Roster runs in CI (`CI` set): never prompt, no live progress view, no review TUI. Set means
 * non-empty and not `false` or `0` in any case: `CI=false` (as some shells and tools export to say "not
 * CI") must not take away the prompt or the TUI. The one reading of `CI`; pure.
 */
export function isCi(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}
