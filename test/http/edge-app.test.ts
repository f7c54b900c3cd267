import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Run in a fresh Node process: the test runner's own process has long loaded everything this checks.
function loadedAfter(code: string): string[] {
  const script = `${code}\nconsole.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as string[];
}

describe('an edge app', () => {
  it("loads what Koa's first object body needs while the service starts, not on the first answer", () => {
    expect(loadedAfter(`await import('koa');`)).toEqual([]);
    expect(loadedAfter(`const { newEdgeApp } = await import('./http/app-common.ts');\nnewEdgeApp();`)).toEqual([
      'NativeModule internal/deps/undici/undici',
    ]);
  });
});
