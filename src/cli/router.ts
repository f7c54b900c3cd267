#!/usr/bin/env -S npx tsx
// The `router` command line (package.json "bin"; `npm run router -- admin shards`). Subcommands dispatch to
// their module: `admin` (the cluster's admin service) and `devnet` (transactions on the devnet's chains).
import { ADMIN_USAGE } from './admin-args.js';
import { runAdmin, type CliIo } from './admin.js';
import { DEVNET_USAGE, runDevnet } from './devnet-send.js';

const USAGE = `usage: router <command>\n  admin <command>   read the cluster through the router-admin NATS service (router admin --help)\n  devnet send …     pay an address on a devnet chain (npm run devnet) from a dev account`;

async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'admin') return runAdmin(rest, io);
  if (command === 'devnet') return runDevnet(rest, io);
  if (command === '--help' || command === '-h') {
    io.out(`${USAGE}\n\n${ADMIN_USAGE}\n\n${DEVNET_USAGE}`);
    return 0;
  }
  io.err(`${command ? `unknown command "${command}"` : 'missing command'}\n${USAGE}`);
  return 2;
}

const io: CliIo = { out: (t) => console.log(t), err: (t) => console.error(t) };
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`router: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
