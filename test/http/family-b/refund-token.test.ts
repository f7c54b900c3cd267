// The gateway secret and refund tokens: generated once in embedded mode (0600), the same across restarts, required
// outside embedded mode, never shown; a token is `rgt_` + base64url(HMAC-SHA256(secret, orderId)).
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewaySecret, loadOrCreateGatewaySecret } from '../../../http/index.js';
import { ConfigError } from '../../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'router-gw-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ORDER = 'cfe092b2-a61f-5973-9179-7b09133fe1a1';

describe('ROUTER_GATEWAY_SECRET unset in embedded mode: 32 random bytes generated once into <data dir>/gateway-secret (0600)', () => {
  it('the same secret on the next start, so tokens survive restarts', async () => {
    const a = await loadOrCreateGatewaySecret({ configured: null, dataDir: join(dir, 'data'), allowGenerate: true });
    const b = await loadOrCreateGatewaySecret({ configured: null, dataDir: join(dir, 'data'), allowGenerate: true });
    expect(a.tokenFor(ORDER)).toBe(b.tokenFor(ORDER));
    const file = join(dir, 'data', 'gateway-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8').trim();
    expect(text).toMatch(/^[0-9a-f]{64}$/);
    // The file's text is the key, as ROUTER_GATEWAY_SECRET's: handing it to edges gives the same tokens.
    expect(new GatewaySecret(text).tokenFor(ORDER)).toBe(a.tokenFor(ORDER));
  });
  it('a configured secret wins; outside embedded mode a missing one stops the start', async () => {
    const s = await loadOrCreateGatewaySecret({ configured: 'c'.repeat(32), dataDir: join(dir, 'other'), allowGenerate: false });
    expect(s.tokenFor(ORDER)).toBe(`rgt_${createHmac('sha256', 'c'.repeat(32)).update(ORDER).digest('base64url')}`);
    await expect(loadOrCreateGatewaySecret({ configured: null, dataDir: join(dir, 'none'), allowGenerate: false })).rejects.toThrow(ConfigError);
  });
  it('the secret never shows in JSON, strings or inspect; tokens compare only for their own order', () => {
    const s = new GatewaySecret('s3cr3t-'.repeat(6));
    for (const shown of [JSON.stringify({ s }), String(s), inspect(s)]) expect(shown).not.toContain('s3cr3t');
    expect(s.verify(ORDER, s.tokenFor(ORDER))).toBe(true);
    expect(s.verify(ORDER, s.tokenFor('another'))).toBe(false);
    expect(s.verify(ORDER, 'rgt_short')).toBe(false);
  });
});
