// ROUTER_METRICS_PORT: where a worker or an edge serves GET /metrics.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { ConfigError } from '../../../src/errors.js';

describe('Config: ROUTER_METRICS_PORT', () => {
  it('defaults to 9464, takes a port (0 = any free one), and `off` serves no metrics', () => {
    expect(loadConfig({}).metrics.port).toBe(9464);
    expect(loadConfig({ ROUTER_METRICS_PORT: '9500' }).metrics.port).toBe(9500);
    expect(loadConfig({ ROUTER_METRICS_PORT: '0' }).metrics.port).toBe(0);
    expect(loadConfig({ ROUTER_METRICS_PORT: 'off' }).metrics.port).toBeNull();
  });

  it('anything else stops the start naming the variable', () => {
    expect(() => loadConfig({ ROUTER_METRICS_PORT: 'on' })).toThrow(ConfigError);
    expect(() => loadConfig({ ROUTER_METRICS_PORT: '70000' })).toThrow(/ROUTER_METRICS_PORT/);
  });
});
