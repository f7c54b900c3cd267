// `router devnet send`'s arguments: a command line that names no EVM chain, no registry asset, no address or no
// positive amount in whole units is refused with exit 2 and the usage, before any node is asked.
import { describe, expect, it } from 'vitest';
import { runDevnet } from '../../../src/cli/devnet-send.js';

async function run(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runDevnet(args, { out: () => undefined, err: (t) => (err += t) });
  return { code, err };
}

const TO = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const send = (over: Record<string, string>) =>
  ['send', ...Object.entries({ chain: 'base', asset: 'USDC', to: TO, amount: '25', rpc: 'http://127.0.0.1:9', ...over }).map(([k, v]) => `--${k}=${v}`)];

describe('router devnet send: arguments', () => {
  it.each([
    [{ chain: 'bitcoin' }, /--chain must name an EVM chain/],
    [{ asset: 'NOPE' }, /--asset: no asset "NOPE" on base/],
    [{ to: '0x123' }, /--to must be an EVM address/],
    [{ amount: '0' }, /`--amount` must be greater than zero/],
    [{ amount: '1e3' }, /`--amount` must be written without an exponent/],
    [{ amount: '1.1234567' }, /`--amount` has 7 digits after the decimal point, but base.USDC has 6 decimals/],
    [{ amount: '-5' }, /`--amount` must be greater than zero, not negative/],
  ])('%o → exit 2 naming the argument', async (over, message) => {
    const { code, err } = await run(send(over));
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err).toContain('usage: router devnet send');
  });

  it('an unknown command or option → exit 2 with the usage', async () => {
    expect((await run(['mint'])).code).toBe(2);
    expect((await run([...send({}), '--value', '1'])).code).toBe(2);
  });
});
