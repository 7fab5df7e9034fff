/**
 * Secrets never appear in output, logs, plan files or errors. Every key the process learns is registered
 * here, and every line written to a user passes through `redactSecrets`.
 */
const known = new Set<string>();

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) known.add(value);
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of known) {
    if (out.includes(secret)) out = out.split(secret).join('***');
  }
  // Authorization headers that slipped into a message.
  return out.replace(/(authorization["']?\s*[:=]\s*["']?Bearer\s+)[^\s"',}]+/gi, '$1***');
}
