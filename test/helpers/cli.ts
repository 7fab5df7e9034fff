import { spawn } from 'node:child_process';
import path from 'node:path';
import { cliBuildDir, ROOT } from './cli-build-dir.js';

export { ROOT };

/**
 * The arguments to `node` that run the CLI: this run's JavaScript build of src/ (test/helpers/cli-build.ts,
 * the global setup), by absolute path, so the CLI runs from any working directory (tests use temp dirs).
 */
export function cliEntry(): string[] {
  return [path.join(cliBuildDir(), 'cli/run.js')];
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI (built from the sources of this checkout, `cliEntry`) as a child process, as a user would, with its own environment.
 * `CI` and `NO_COLOR` are set unless the caller overrides them, so output is plain and non-interactive.
 */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, CI: 'true', NO_COLOR: '1', ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    const child = spawn(process.execPath, [...cliEntry(), ...args], {
      cwd: options.cwd ?? ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
