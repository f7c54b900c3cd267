// Compiles DevToken.sol with the npm solc (its bundled soljson: synchronous, no download, no network). Only the build
// step (`npm run build:contracts`, build-contracts.ts) and the test that checks the committed artifact against the
// source load it; the runtime reads DevToken.artifact.json (dev-token.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Abi } from 'viem';
import { DEV_TOKEN_SLOTS, devTokenAbi, signatureOf, type DevTokenArtifact } from './dev-token.js';

const SOURCE_NAME = 'DevToken.sol';

/** A fixed EVM version keeps the bytecode the same whatever solc's default, and anvil runs every Cancun opcode. */
export const DEV_TOKEN_SETTINGS = { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 } } as const;

interface Solc {
  compile(input: string): string;
  version(): string;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, {
    abi: Abi;
    evm: { deployedBytecode: { object: string } };
    storageLayout: { storage: { label: string; slot: string; offset: number }[] };
  }>>;
}

/**
 * DevToken.sol compiled now. Throws when solc reports an error, when the storage layout differs from DEV_TOKEN_SLOTS
 * (placing would then write the wrong slots), or when the ABI lacks an entry of devTokenAbi.
 */
export function compileDevTokenSource(): DevTokenArtifact {
  // solc's module is untyped JavaScript: its two functions used here are named by the Solc interface.
  const solc: Solc = createRequire(import.meta.url)('solc');
  const content = readFileSync(new URL(`./${SOURCE_NAME}`, import.meta.url), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { [SOURCE_NAME]: { content } },
    settings: { ...DEV_TOKEN_SETTINGS, outputSelection: { [SOURCE_NAME]: { DevToken: ['abi', 'evm.deployedBytecode.object', 'storageLayout'] } } },
  };
  const out: SolcOutput = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`DevToken.sol does not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contract = out.contracts?.[SOURCE_NAME]?.DevToken;
  if (!contract) throw new Error('DevToken.sol: solc returned no DevToken contract');

  for (const [label, slot] of Object.entries(DEV_TOKEN_SLOTS)) {
    const entry = contract.storageLayout.storage.find((s) => s.label === label);
    if (!entry || BigInt(entry.slot) !== slot || entry.offset !== 0) {
      throw new Error(`DevToken.sol: ${label} is at slot ${entry?.slot ?? '?'} offset ${entry?.offset ?? '?'}, DEV_TOKEN_SLOTS says ${slot}`);
    }
  }
  const have = new Set(contract.abi.map(signatureOf));
  for (const item of devTokenAbi) {
    if (!have.has(signatureOf(item))) throw new Error(`DevToken.sol: the compiled ABI lacks ${item.type} ${item.name} of devTokenAbi`);
  }
  return { compiler: `solc ${solc.version()}`, settings: DEV_TOKEN_SETTINGS, abi: contract.abi, deployedBytecode: `0x${contract.evm.deployedBytecode.object}` };
}

/** The artifact file's text for a compiled DevToken: stable (two-space JSON, trailing newline), so a rebuild of the
 *  same source writes the same bytes. */
export function artifactText(a: DevTokenArtifact): string {
  return `${JSON.stringify(a, null, 2)}\n`;
}
