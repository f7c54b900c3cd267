// The dev listener's clock offset is kept in the data dir: a restart resumes at the time the service had reached, so
// what was stored under the moved clock (deadlines, the simulated chains' blocks) is not pushed back into the future.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readClockOffset } from '../../src/dev-clock.js';
import { pollUntil } from '../support/poll.js';
import { startService } from '../support/service.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'router-dev-clock-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('The clock offset is persisted: a restart resumes at the time reached', () => {
  it('a day moved through POST /clock/advance is still there after a restart on the same data dir', async () => {
    const dir = tempDir();
    const first = await startService({}, dir);
    const moved = await first.post(`${first.devUrl}/clock/advance`, { ms: 86_400_000 });
    expect(moved.status).toBe(200);
    expect(Date.parse(moved.body.now) - Date.now()).toBeGreaterThan(86_000_000);
    await first.stop();
    expect(readClockOffset(dir)).toBe(86_400_000);

    const second = await startService({}, dir);
    try {
      expect(second.service.clock.now() - Date.now()).toBeGreaterThan(86_000_000);
      const again = await second.post(`${second.devUrl}/clock/advance`, { ms: 1_000 });
      expect(Date.parse(again.body.now) - Date.now()).toBeGreaterThan(86_000_000);
      expect(readClockOffset(dir)).toBe(86_401_000);
    } finally {
      await second.stop();
    }
  });

  it('after a restart, a deposit is seen and the order delivered, with no wait for the system time to catch up', async () => {
    const dir = tempDir();
    const first = await startService({ ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_DEPOSIT_POLL_MS: '50' }, dir);
    expect((await first.post(`${first.devUrl}/clock/advance`, { ms: 1_800_000 })).status).toBe(200);
    await first.stop();

    const second = await startService({ ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_DEPOSIT_POLL_MS: '50' }, dir);
    try {
      const q = await second.post('/quote', { from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '2500', return_full_route: false });
      expect(q.status).toBe(200);
      const o = await second.post('/order', { quote_id: q.body.id, to_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' });
      expect(o.status).toBe(201);
      const d = await second.post(`${second.devUrl}/deposits`, {
        to: o.body.deposit_address, asset: 'base.usdc', amount: '2500', from: '0x000000000000000000000000000000000000dEaD',
      });
      expect(d.status).toBe(201);
      const read = async () => (await fetch(`${second.url}/order/${o.body.id}`)).json() as Promise<{ status: string }>;
      const done = await pollUntil(read, (x) => x.status === 'delivered', 10_000);
      expect(done.status).toBe('delivered');
    } finally {
      await second.stop();
    }
  });

  it('a data dir whose offset file is not a number is refused at start, naming the file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'dev-clock-offset'), 'soon\n');
    expect(() => readClockOffset(dir)).toThrow(/dev-clock-offset holds "soon"/);
  });
});
