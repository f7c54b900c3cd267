// A local cluster's process is launched again on fresh ports when another process took a chosen port before the
// child listened; any other failure is the caller's at once.
import { describe, expect, it } from 'vitest';
import { onFreshPorts } from '../../../src/cluster/local-cluster.js';

const taken = () => new Error('edge exited (1) before it was ready:\nswap-router: failed to start: listen EADDRINUSE: address already in use 127.0.0.1:46771');

describe('onFreshPorts', () => {
  it('a port taken in the meantime: tried again, and the next launch is answered', async () => {
    let tries = 0;
    const answer = await onFreshPorts(async () => {
      if (++tries === 1) throw taken();
      return 'ready';
    });
    expect(answer).toBe('ready');
    expect(tries).toBe(2);
  });

  it('any other failure is thrown at once', async () => {
    let tries = 0;
    await expect(onFreshPorts(async () => {
      tries++;
      throw new Error('worker exited (1) before it was ready: bad config');
    })).rejects.toThrow(/bad config/);
    expect(tries).toBe(1);
  });

  it('ports taken three times in a row: the last failure is thrown', async () => {
    let tries = 0;
    await expect(onFreshPorts(async () => {
      tries++;
      throw taken();
    })).rejects.toThrow(/EADDRINUSE/);
    expect(tries).toBe(3);
  });
});
