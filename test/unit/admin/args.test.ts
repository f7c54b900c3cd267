// `router admin`'s command line, read before any connection: the usage on --help, a usage error (exit 2) for what
// cannot become a request, and otherwise the request, the output form and a local audit's data dir.
import { describe, expect, it } from 'vitest';
import { readAdminCommandLine, UsageError } from '../../../src/cli/admin-args.js';
import { ADMIN_SUBJECTS } from '../../../src/protocol/admin.js';

describe('router admin: the command line', () => {
  it('--help or -h asks for the usage', () => {
    expect(readAdminCommandLine(['--help'])).toEqual({ help: true });
    expect(readAdminCommandLine(['actors', 'order', '-h'])).toEqual({ help: true });
  });

  it('a command becomes its request; --json and --data-dir are read', () => {
    const line = readAdminCommandLine(['actor', 'order', 'o-1', '--json']);
    expect(line.help).toBe(false);
    if (line.help) return;
    expect(line.call?.subject).toBe(ADMIN_SUBJECTS.actor);
    expect(line.json).toBe(true);
    expect(line.dataDir).toBeUndefined();
    const audit = readAdminCommandLine(['audit', '--data-dir', '/tmp/d']);
    expect(!audit.help && [audit.call?.subject, audit.dataDir, audit.json]).toEqual([ADMIN_SUBJECTS.audit, '/tmp/d', false]);
    const services = readAdminCommandLine(['services']);
    expect(!services.help && services.call).toBeNull();
  });

  it.each([
    [['--nope'], /Unknown option '--nope'/],
    [['services', 'extra'], /admin services takes no arguments/],
    [['services', '--limit', '5'], /admin services takes no arguments/],
    [['counts', '--data-dir', '/tmp/d'], /--data-dir belongs to `admin audit`/],
  ])('%j → a usage error', (args, message) => {
    expect(() => readAdminCommandLine(args)).toThrow(UsageError);
    expect(() => readAdminCommandLine(args)).toThrow(message);
  });
});
