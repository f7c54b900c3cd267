// The access line of every request shows at most LOGGED_PATH_CHARS of its path, so a long path is not copied whole
// into the log for every request a client sends.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../http/index.js';
import { createLogger } from '../../src/log.js';
import { LOGGED_PATH_CHARS, loggedPath } from '../../http/request-id.js';
import { FakeBus, serveChecked } from './family-a/support.js';

describe('The access line shows a path of at most 256 characters', () => {
  it('a short path whole; a long one cut, with its length', () => {
    expect(loggedPath('/quote')).toBe('/quote');
    const long = `/${'z'.repeat(8000)}`;
    expect(loggedPath(long)).toBe(`${long.slice(0, LOGGED_PATH_CHARS)}…(8001 chars)`);
  });

  it('an 8000-character path makes an access line under 1 KB', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) }));
    const app = createApp({ bus: new FakeBus(), logger, newId: () => '00000000-0000-4000-8000-000000000000', bodyLimitBytes: 65_536 });
    const { base: url, close } = await serveChecked(app);
    try {
      const res = await fetch(`${url}/${'z'.repeat(8000)}`);
      expect(res.status).toBe(404);
      await new Promise((r) => setTimeout(r, 50));
      const access = lines.filter((l) => l.includes('"msg":"request"') && l.includes('zzz'));
      expect(access).toHaveLength(1);
      expect(access[0]!.length).toBeLessThan(1024);
    } finally {
      await close();
    }
  });
});
