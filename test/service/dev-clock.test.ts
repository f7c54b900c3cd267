// The dev listener's clock offset lives in the process only: a restart on the same data dir returns to the system time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../support/service.js';

const dir = mkdtempSync(join(tmpdir(), 'router-dev-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('The clock offset is not persisted: a restart returns to the system time', () => {
  it('a day moved through POST /clock/advance is gone after a restart on the same data dir', async () => {
    const first = await startService({}, dir);
    const moved = await first.post(`${first.devUrl}/clock/advance`, { ms: 86_400_000 });
    expect(moved.status).toBe(200);
    expect(Date.parse(moved.body.now) - Date.now()).toBeGreaterThan(86_000_000);
    await first.stop();

    const second = await startService({}, dir);
    try {
      expect(Math.abs(second.service.clock.now() - Date.now())).toBeLessThan(60_000);
      const now = await second.post(`${second.devUrl}/clock/advance`, { ms: 0 });
      expect(Math.abs(Date.parse(now.body.now) - Date.now())).toBeLessThan(60_000);
    } finally {
      await second.stop();
    }
  });
});
