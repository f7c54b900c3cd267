// Refund tokens of Family B: `rgt_` + base64url(HMAC-SHA256(gateway secret, orderId)). Derived, never stored or
// logged, so a replayed creation answers the same token and a leaked store leaks none. Also where the secret comes
// from in embedded mode: `<dataDir>/gateway-secret`, 32 random bytes generated once, mode 0600 (as the vault seed).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { chmod, link, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../src/errors.js';
import { ensurePrivateDir } from '../../src/store/private-files.js';

export const TOKEN_PREFIX = 'rgt_';
export const SECRET_FILE = 'gateway-secret';

/** The key of refund tokens; opaque so that no log line or JSON shows it. */
export class GatewaySecret {
  readonly #key: Buffer;
  constructor(key: Uint8Array | string) {
    this.#key = Buffer.from(key);
    if (this.#key.length < 32) throw new ConfigError('The gateway secret must be at least 32 bytes.');
  }
  /** The refund token of an order. */
  /** A key of its own for another purpose (`label`), derived from the secret, so the secret itself never leaves. */
  derive(label: string): Buffer {
    return createHmac('sha256', this.#key).update(`derive\n${label}`, 'utf8').digest();
  }
  tokenFor(orderId: string): string {
    return TOKEN_PREFIX + createHmac('sha256', this.#key).update(orderId, 'utf8').digest('base64url');
  }
  /** Constant-time check that `token` is the refund token of `orderId`. */
  verify(orderId: string, token: string): boolean {
    const expected = Buffer.from(this.tokenFor(orderId), 'utf8');
    const given = Buffer.from(token, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return 'GatewaySecret [redacted]';
  }
}

/**
 * The configured secret, or (embedded mode) the one in `<dataDir>/gateway-secret`, generated on first start. Outside
 * embedded mode a missing secret stops the start: every edge must derive the same tokens.
 */
export async function loadOrCreateGatewaySecret(opts: { configured: string | null; dataDir: string; allowGenerate: boolean }): Promise<GatewaySecret> {
  if (opts.configured !== null) return new GatewaySecret(opts.configured);
  if (!opts.allowGenerate) {
    throw new ConfigError('ROUTER_GATEWAY_SECRET is required outside embedded mode: every edge must derive the same refund tokens.');
  }
  const file = join(opts.dataDir, SECRET_FILE);
  const existing = await readSecret(file);
  if (existing) return existing;
  // The data dir is private (0700 whatever the umask), as for the vault seed.
  ensurePrivateDir(opts.dataDir);
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString('hex')}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  // chmod after creation: the mode given to open is narrowed by the umask, chmod is not.
  await chmod(tmp, 0o600);
  try {
    // link() fails when the name exists: two processes starting together keep the first one's secret.
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(tmp).catch(() => {});
  }
  const written = await readSecret(file);
  if (!written) throw new ConfigError(`The gateway secret file ${file} could not be read back after it was written.`);
  return written;
}

async function readSecret(file: string): Promise<GatewaySecret | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`The gateway secret file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new ConfigError(`The gateway secret file ${file} is not 32 bytes of hex (value not shown).`);
  // The key is the text itself, as for ROUTER_GATEWAY_SECRET: the file's content can be handed to edges as that variable.
  return new GatewaySecret(hex);
}
