// One typed config from an injected environment: absent means the default, present but invalid stops the start.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

describe('Config: defaults make the embedded mode work with no settings at all', () => {
  it('an empty environment gives the documented defaults', () => {
    const c = loadConfig({});
    expect(c.portA).toBe(8080);
    expect(c.dataDir).toBe('./data');
    expect(c.sim).toEqual({ seed: 1, latencyScale: 1, failures: true, silent: [] });
    expect(c.routing.deadlines).toEqual({ fast: 1500, optimal: 10_000 });
    expect(c.routing.pathLimit).toBe(64);
    expect(c.routing.maxHops).toBe(3);
    expect(c.deriveAhead).toBe(64);
    expect(c.requestTimeoutMs).toBe(45_000);
    expect(c.bodyLimitBytes).toBe(64 * 1024);
    expect(c.orders).toMatchObject({ maxAttempts: 5, backoffMs: 2000, shortfallToleranceBps: 100 });
  });

  it('present values are read and typed', () => {
    const c = loadConfig({
      ROUTER_PORT_A: '9090', ROUTER_SIM_LATENCY_SCALE: '0', ROUTER_SIM_SEED: '42', ROUTER_SIM_FAILURES: 'off', ROUTER_SIM_SILENT_VENUES: 'relay, cctp_fast',
      ROUTER_DATA_DIR: '/tmp/x', ROUTER_DERIVE_AHEAD: '0',
    });
    expect(c.portA).toBe(9090);
    expect(c.sim).toEqual({ seed: 42, latencyScale: 0, failures: false, silent: ['relay', 'cctp_fast'] });
    expect(c.dataDir).toBe('/tmp/x');
    expect(c.deriveAhead).toBe(0);
  });
});

describe('Config: a present but invalid value stops the start with a message naming the variable', () => {
  const cases: Array<[string, string]> = [
    ['ROUTER_PORT_A', 'eighty'],
    ['ROUTER_PORT_A', '70000'],
    ['ROUTER_SIM_LATENCY_SCALE', '-1'],
    ['ROUTER_SIM_LATENCY_SCALE', 'fast'],
    ['ROUTER_SIM_SEED', '1.5'],
    ['ROUTER_SIM_FAILURES', 'maybe'],
    ['ROUTER_SIM_SILENT_VENUES', 'relay,uniswap'],
    ['ROUTER_LOG_LEVEL', 'loud'],
    ['ROUTER_DATA_DIR', '   '],
    ['ROUTER_MULTIHOP_PATH_LIMIT', '0'],
    ['ROUTER_VAULT_SEED', 'not a mnemonic'],
    ['ROUTER_ORDER_MAX_ATTEMPTS', '0'],
    ['ROUTER_DERIVE_AHEAD', '-1'],
  ];
  for (const [name, value] of cases) {
    it(`${name}=${JSON.stringify(value)}`, () => {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
    });
  }
});

describe('Config: the store', () => {
  it('MONGODB_URL alone selects MongoDB; its database is the one the URL names', () => {
    const c = loadConfig({ MONGODB_URL: 'mongodb://h1,h2/router?replicaSet=rs' });
    expect(c.store).toEqual({ kind: 'mongodb', mongodbUrl: 'mongodb://h1,h2/router?replicaSet=rs' });
    expect(loadConfig({}).store).toEqual({ kind: 'sqlite', mongodbUrl: null });
  });

  it('a MONGODB_URL naming no database is refused (the driver would use "test"), naming the variable', () => {
    for (const url of ['mongodb://h1', 'mongodb://h1/', 'mongodb://h1:27017/?replicaSet=rs', 'mongodb+srv://u:secret@c.example.com/?w=1']) {
      expect(() => loadConfig({ MONGODB_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ MONGODB_URL: url })).toThrow(/MONGODB_URL must name a database/);
      expect(() => loadConfig({ MONGODB_URL: url, ROUTER_STORE: 'sqlite' })).toThrow(/MONGODB_URL/);
    }
  });

  it('a database name MongoDB refuses is refused at start; the message never shows the password', () => {
    expect(() => loadConfig({ MONGODB_URL: 'mongodb://u:secret@h1/a.b' })).toThrow(/MONGODB_URL names the database "a\.b"/);
    try {
      loadConfig({ MONGODB_URL: 'mongodb://u:secret@h1/' });
    } catch (err) {
      expect(String(err)).not.toMatch(/secret/);
    }
  });

  it('ROUTER_STORE=mongodb without MONGODB_URL, or a URL of another scheme, is refused', () => {
    expect(() => loadConfig({ ROUTER_STORE: 'mongodb' })).toThrow(/MONGODB_URL/);
    expect(() => loadConfig({ MONGODB_URL: 'postgres://h1/router' })).toThrow(/MONGODB_URL/);
  });
});

describe('Config: Family B (the gateway)', () => {
  it('defaults: port 8081, gateway id swap-router, no secret (embedded mode generates one), 100 bps slippage', () => {
    const c = loadConfig({});
    expect(c.portB).toBe(8081);
    expect(c.gateway).toEqual({ id: 'swap-router', secret: null, maxSlippageBps: 100 });
  });

  it('present values are read', () => {
    const secret = 'x'.repeat(40);
    const c = loadConfig({ ROUTER_PORT_B: '9091', ROUTER_GATEWAY_ID: 'gw-1', ROUTER_GATEWAY_SECRET: secret, ROUTER_MAX_SLIPPAGE_BPS: '250' });
    expect(c.portB).toBe(9091);
    expect(c.gateway).toEqual({ id: 'gw-1', secret, maxSlippageBps: 250 });
  });

  it.each([
    ['ROUTER_PORT_B', 'x'],
    ['ROUTER_GATEWAY_ID', 'has space'],
    ['ROUTER_GATEWAY_SECRET', 'short'],
    ['ROUTER_MAX_SLIPPAGE_BPS', '10001'],
  ])('%s=%s stops the start naming the variable (and never the secret)', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
    if (name === 'ROUTER_GATEWAY_SECRET') expect(() => loadConfig({ [name]: value })).not.toThrow(value);
  });
});

describe('Config: real EVM chains (ROUTER_EVM_RPC_<CHAIN>, ROUTER_EVM_TREASURY_KEY, ROUTER_EVM_GAS_KEY)', () => {
  const TREASURY = `0x${'11'.repeat(32)}`;
  const GAS = `0x${'22'.repeat(32)}`;
  const keys = { ROUTER_EVM_TREASURY_KEY: TREASURY, ROUTER_EVM_GAS_KEY: GAS };

  it('none set: every chain is simulated', () => {
    expect(loadConfig({}).evm.rpc).toEqual({});
    expect(loadConfig({}).evm.treasuryKey).toBeNull();
  });

  it('an RPC URL per registry EVM chain, with both keys', () => {
    const c = loadConfig({ ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:8546', ROUTER_EVM_RPC_ARBITRUM: 'https://arb.example/v2/k', ...keys });
    expect(c.evm.rpc).toEqual({ base: 'http://127.0.0.1:8546', arbitrum: 'https://arb.example/v2/k' });
    expect(c.evm.treasuryKey?.reveal()).toBe(TREASURY);
    expect(c.evm.gasKey?.reveal()).toBe(GAS);
  });

  it('the keys never show in JSON, String() or util.inspect of the config', async () => {
    const { inspect } = await import('node:util');
    const c = loadConfig({ ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:8546', ...keys });
    for (const text of [JSON.stringify(c), String(c.evm.treasuryKey), inspect(c, { depth: 10 })]) {
      expect(text).not.toContain('1111111111');
      expect(text).not.toContain('2222222222');
    }
  });

  it('an RPC without the keys stops the start naming the missing ones', () => {
    expect(() => loadConfig({ ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:8546' })).toThrow(/ROUTER_EVM_TREASURY_KEY and ROUTER_EVM_GAS_KEY/);
    expect(() => loadConfig({ ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:8546', ROUTER_EVM_TREASURY_KEY: TREASURY })).toThrow(/needs ROUTER_EVM_GAS_KEY/);
    expect(() => loadConfig({ ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:8546', ROUTER_EVM_GAS_KEY: GAS })).toThrow(ConfigError);
  });

  it('a non-http(s) URL, a chain that is not an EVM chain of the registry, or a malformed key is refused, value not shown', () => {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ ROUTER_EVM_RPC_BASE: 'ws://127.0.0.1:8546', ...keys }, /ROUTER_EVM_RPC_BASE must be an http\(s\) URL/],
      [{ ROUTER_EVM_RPC_BASE: 'not a url', ...keys }, /ROUTER_EVM_RPC_BASE/],
      [{ ROUTER_EVM_RPC_BITCOIN: 'http://127.0.0.1:8332', ...keys }, /ROUTER_EVM_RPC_BITCOIN names no EVM chain/],
      [{ ROUTER_EVM_RPC_BASSE: 'http://127.0.0.1:8546', ...keys }, /ROUTER_EVM_RPC_BASSE/],
      [{ ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:8546', ...keys, ROUTER_EVM_TREASURY_KEY: '0x1234' }, /ROUTER_EVM_TREASURY_KEY must be a private key/],
      [{ ROUTER_EVM_RPC_BASE: 'http://127.0.0.1:8546', ...keys, ROUTER_EVM_GAS_KEY: `${'33'.repeat(32)}` }, /ROUTER_EVM_GAS_KEY/],
    ];
    for (const [env, msg] of bad) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(msg);
    }
    expect(() => loadConfig({ ROUTER_EVM_RPC_BASE: 'http://u:secretpw@127.0.0.1', ...keys, ROUTER_EVM_GAS_KEY: '0xzz' })).not.toThrow(/secretpw|0xzz/);
  });

  it('ROUTER_EVM_CONFIRMATIONS_<CHAIN>: confirmations per real chain (1–1000); absent = the registry figure', () => {
    expect(loadConfig({}).evm.confirmations).toEqual({});
    expect(loadConfig({ ROUTER_EVM_CONFIRMATIONS_BASE: '4', ROUTER_EVM_CONFIRMATIONS_ETHEREUM: '12' }).evm.confirmations).toEqual({ base: 4, ethereum: 12 });
    expect(() => loadConfig({ ROUTER_EVM_CONFIRMATIONS_BASE: '0' })).toThrow(/between 1 and 1000/);
    expect(() => loadConfig({ ROUTER_EVM_CONFIRMATIONS_BITCOIN: '2' })).toThrow(/ROUTER_EVM_CONFIRMATIONS_BITCOIN names no EVM chain/);
  });
});
