// The worker thread of addresses-ahead.ts: derives the batches of deposit addresses it is asked for, in order.
import type { MessagePort } from 'node:worker_threads';
import type { AheadAnswer, AheadRequest, AheadWorkerData } from './addresses-ahead.js';
import { deriveAddress } from './derive.js';
import { MasterSeed } from './seed.js';

export function serve(port: MessagePort, data: AheadWorkerData): void {
  const seed = new MasterSeed(data.seed, 'configured');
  port.on('message', (req: AheadRequest) => {
    let answer: AheadAnswer;
    try {
      const addresses = Array.from({ length: req.count }, (_, i) => deriveAddress(seed, req.scheme, req.from + i));
      answer = { ok: true, scheme: req.scheme, from: req.from, addresses };
    } catch (err) {
      answer = { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    port.postMessage(answer);
  });
}
