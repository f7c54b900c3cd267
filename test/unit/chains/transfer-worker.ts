// A second process for the chains tests: opens the ledger file and makes transfers, printing each tx id once its
// promise resolved. Usage: node --import tsx transfer-worker.ts <file> <mode> <count> <start ms>
// mode `same-key`: <count> concurrent transfers with one key; mode `stream`: one transfer after another until killed.
import { findAsset } from '../../../src/assets/registry.js';
import { MINT_ACCOUNT, openSimChains } from '../../../src/chains/index.js';
import { ManualClock } from '../../../src/clock.js';

const [file, mode, count, start] = process.argv.slice(2);
const clock = new ManualClock(undefined, Number(start));
const chains = openSimChains({ file: file!, clock, pollMs: 0 });
const usdc = findAsset('base', 'USDC')!.id;
const users = ['0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222', 'pool:relay'];

if (mode === 'same-key') {
  const all = await Promise.all(
    Array.from({ length: Number(count) }, () =>
      chains.transfer({ key: 'shared-key', chain: 'base', asset: usdc, from: MINT_ACCOUNT, to: users[0]!, amount: 1_000n }),
    ),
  );
  process.stdout.write(JSON.stringify([...new Set(all.map((t) => t.txId))]));
  await chains.close();
} else {
  // Each line is written only after the transfer is durable: the parent kills us and checks every printed one exists.
  for (let i = 0; ; i++) {
    const from = i % 4 === 0 ? MINT_ACCOUNT : users[i % 3]!;
    const to = users[(i + 1) % 3]!;
    try {
      const t = await chains.transfer({ key: `stream:${i}`, chain: 'base', asset: usdc, from, to, amount: BigInt(1 + (i % 7)) });
      process.stdout.write(`${t.txId}\n`);
    } catch {
      process.stdout.write(`refused ${i}\n`);
    }
    clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
