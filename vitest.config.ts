import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files share two cores, so a service under test sees its event loop late and its turns long through no
    // fault of its own; shedding on either would refuse test quotes with 503 at random. Processes the tests start
    // (clusters) inherit this; the tests of shedding build their guard with the thresholds they test.
    // Every embedded service under test checks each actor reply survives the NATS codec unchanged.
    env: { ROUTER_SHED_EVENT_LOOP_DELAY_MS: '0', ROUTER_SHED_TURN_BUDGET_MS: '0', ROUTER_BUS_VERIFY_CODEC: 'on' },
  },
});
