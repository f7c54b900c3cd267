// The embedded service's composition root builds; `start()` runs it, once. Built and not started it takes no message;
// started twice at once it serves once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createEmbeddedService } from '../../src/service.js';
import { toQuoteRequest } from '../../http/family-a/quote.js';
import { testServiceConfig } from '../support/service.js';

const QUOTE_BODY = toQuoteRequest({ from: 'base.usdc', to: 'arbitrum.usdc', from_amount: '1000', return_full_route: true });

const dir = mkdtempSync(join(tmpdir(), 'router-lifecycle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('The embedded service: built, then started once', () => {
  it('built, a quote is not answered; start() called twice at once serves once, and the quote is answered', async () => {
    const config = testServiceConfig(dir, { ROUTER_DEV_LISTENER: 'off' });
    const service = await createEmbeddedService(config, { logger: createLogger('silent') });
    try {
      const before = await service.bus.request({ kind: 'quote', id: 'q-before' }, { type: 'quote.request', request: QUOTE_BODY }).then(
        () => 'answered',
        (err: unknown) => (err as Error).name,
      );
      expect(before).toBe('Unavailable');
      await Promise.all([service.start(), service.start()]);
      await service.start();
      const quote = await service.bus.request({ kind: 'quote', id: 'q-after' }, { type: 'quote.request', request: QUOTE_BODY });
      expect(quote.id).toBe('q-after');
    } finally {
      await service.close();
    }
  });
});
