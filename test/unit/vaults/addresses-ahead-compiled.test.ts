// The address thread as a compiled build runs it: src/ transpiled to JavaScript and loaded by plain node, with no tsx
// loader in the process or the thread. The thread finds derive-worker.js beside its own module and hands over the
// addresses the loop derives.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const out = mkdtempSync(join(tmpdir(), 'router-compiled-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** src/ as JavaScript ES modules under `out`, beside the project's node_modules (linked) and package type. */
function compileSrc(): void {
  for (const file of tsFiles(join(ROOT, 'src'))) {
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true },
      fileName: file,
    });
    const target = join(out, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
}

const SCRIPT = `
import { createLogger } from './src/log.js';
import { deriveAddress } from './src/vaults/derive.js';
import { deriveAddressesAhead } from './src/vaults/addresses-ahead.js';
import { parseSeed } from './src/vaults/seed.js';
const seed = parseSeed('legal winner thank year wave sausage worth useful legal winner thank yellow');
const ahead = deriveAddressesAhead(seed, { ahead: 4, logger: createLogger('silent') });
const result = {};
for (const scheme of ['bip44-evm', 'bip84-p2wpkh']) {
  ahead.take(scheme, 0);
  await ahead.caughtUp();
  result[scheme] = { thread: [1, 2, 3].map((i) => ahead.take(scheme, i) ?? null), loop: [1, 2, 3].map((i) => deriveAddress(seed, scheme, i)) };
}
await ahead.close();
console.log(JSON.stringify(result));
`;

describe('Deposit addresses derived ahead, compiled to JavaScript', () => {
  it('run by plain node without tsx, the thread loads derive-worker.js and hands over what the loop derives', () => {
    compileSrc();
    writeFileSync(join(out, 'check.mjs'), SCRIPT);
    // No inherited loader: NODE_OPTIONS is where a test runner or `tsx` would put one.
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const run = spawnSync(process.execPath, [join(out, 'check.mjs')], { cwd: out, env, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as Record<string, { thread: Array<string | null>; loop: string[] }>;
    for (const scheme of ['bip44-evm', 'bip84-p2wpkh']) {
      expect(result[scheme]!.thread).toEqual(result[scheme]!.loop);
      expect(result[scheme]!.loop.every((a) => a.length > 20)).toBe(true);
    }
  }, 90_000);
});
