// The in-process bus (embedded mode) against the bus contract.
import { createInProcessBus } from '../../../src/bus/index.js';
import { busContract } from './bus-contract.js';

busContract('in-process', async () => {
  const bus = createInProcessBus(5_000);
  return { bus, close: () => bus.close() };
});
