// `router admin`'s command line, read before any connection: the usage on --help, a usage error (exit 2) for what
// cannot become a request, and otherwise the request, the output form and a local audit's data dir.
import { describe, expect, it } from 'vitest';
import { answerOf, planCall, readAdminCommandLine, UsageError } from '../../../src/cli/admin-args.js';
import { MalformedMessage } from '../../../src/errors.js';
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

describe('router admin: an answer is read through the protocol\'s check of its endpoint', () => {
  const shards = { total: 2, unowned: 1, shards: [{ shard: 0, owner: 'w-1', epoch: 3, renewedAt: 1_000 }, { shard: 1, owner: null, epoch: null, renewedAt: null }], workers: [{ id: 'w-1', seenAt: 1_000, pid: 42, host: 'h', shards: 1 }] };

  it('an answer of the protocol\'s shape is rendered', () => {
    expect(planCall('shards', [], {}).render(JSON.stringify(shards))).toContain('w-1');
    expect(answerOf('shards', JSON.stringify(shards))).toEqual(shards);
  });

  it('an answer of another shape (a worker of another version) is refused with MalformedMessage naming its subject', () => {
    const { workers: _gone, ...older } = shards;
    expect(() => planCall('shards', [], {}).render(JSON.stringify(older))).toThrow(MalformedMessage);
    expect(() => answerOf('shards', JSON.stringify(older))).toThrow('The answer of router.admin.shards does not have the fields this version of the CLI reads');
  });

  it('the audit\'s exit code is read from a checked answer: a report without `clean` is refused, not taken as clean or not', () => {
    const report = { orders: 0, accounts: [], gas: [], rows: [], foreign: [], pending: [], findings: [], unreadable: [], differing: 0, clean: true };
    const audit = planCall('audit', [], {});
    expect(audit.exitCode?.(JSON.stringify(report))).toBe(0);
    expect(audit.exitCode?.(JSON.stringify({ ...report, clean: false }))).toBe(1);
    const { clean: _clean, ...unclear } = report;
    expect(() => audit.exitCode?.(JSON.stringify(unclear))).toThrow(MalformedMessage);
    const finding = { kind: 'held_mismatch', order: 'o', chain: 'base', asset: 'a', address: '0xa', held: '5', ledgerHeld: '4' };
    expect(audit.exitCode?.(JSON.stringify({ ...report, findings: [finding], clean: false }))).toBe(1);
    expect(() => audit.exitCode?.(JSON.stringify({ ...report, findings: [{ ...finding, kind: 'new_kind' }], clean: false }))).toThrow(MalformedMessage);
  });
});
