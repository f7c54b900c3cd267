// Runs the `router` command line as an operator would: its own process, no ROUTER_* settings of the test's
// environment unless given, stdout and stderr collected.
import { spawn } from 'node:child_process';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runRouterCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ROUTER_')));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/router.ts', ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((res) => child.on('close', (code) => res({ code, stdout, stderr })));
}
