// ChainAddress / RawAddress (spec 2.1, spec 4 `to_address`, `refund_address`): "validated against that chain's
// address format". Real mainnet addresses of every type are accepted and normalized; corrupted ones are refused.
import fc from 'fast-check';
import { address as btcAddress, networks, payments } from 'bitcoinjs-lib';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { validateAddress, type ChainName } from '../../../src/assets/index.js';
import { InvalidAddress } from '../../../src/errors.js';

const EVM_LIKE: ChainName[] = ['ethereum', 'base', 'arbitrum', 'robinhood', 'ink', 'hyperliquid'];

function refusal(chain: ChainName, address: string, field = 'to_address'): InvalidAddress {
  try {
    validateAddress(chain, address, field);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidAddress);
    const e = err as InvalidAddress;
    expect(e.code).toBe('invalid_address');
    expect(e.field).toBe(field);
    expect(e.message.startsWith(`\`${field}\` is not a valid address on ${chain}: `)).toBe(true);
    expect(e.message).toMatch(/^[^\n]+\.$/);
    return e;
  }
  throw new Error(`${JSON.stringify(address)} was accepted on ${chain}`);
}

describe('ChainAddress on EVM chains and hyperliquid (HyperCore accounts are EVM addresses): 0x + 40 hex, EIP-55 when mixed case', () => {
  // The test vectors of EIP-55 itself: all upper, all lower, and mixed-case checksummed.
  const EIP55 = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb'];
  it.each(EVM_LIKE)('the EIP-55 vectors are accepted on %s and returned in checksummed form', (chain) => {
    for (const a of EIP55) expect(validateAddress(chain, a, 'to_address')).toBe(a);
  });
  it('all-lowercase and all-uppercase digits carry no checksum: accepted, returned checksummed', () => {
    const checksummed = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
    expect(validateAddress('base', checksummed.toLowerCase(), 'to_address')).toBe(checksummed);
    expect(validateAddress('hyperliquid', `0x${checksummed.slice(2).toUpperCase()}`, 'to_address')).toBe(checksummed);
    expect(validateAddress('ink', checksummed, 'to_address')).toBe(checksummed);
  });
  it('mixed case that does not match the checksum is refused, naming the field and the chain', () => {
    expect(refusal('base', '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96046').message).toBe(
      '`to_address` is not a valid address on base: its mixed-case letters do not match the EIP-55 checksum.',
    );
    expect(refusal('hyperliquid', '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'refund_address').message).toBe(
      '`refund_address` is not a valid address on hyperliquid: its mixed-case letters do not match the EIP-55 checksum.',
    );
  });
  it('property: any address in checksummed, lower or upper case is accepted; one letter\'s case flipped into mixed case is refused', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat(), fc.constantFrom(...EVM_LIKE), (bytes, pick, chain) => {
        const lower = `0x${Buffer.from(bytes).toString('hex')}`;
        fc.pre(lower !== '0x0000000000000000000000000000000000000000');
        const checksummed = getAddress(lower);
        for (const spelling of [checksummed, lower, `0x${lower.slice(2).toUpperCase()}`]) {
          expect(validateAddress(chain, spelling, 'to_address')).toBe(checksummed);
        }
        const letters = [...checksummed].flatMap((ch, i) => (i >= 2 && /[a-fA-F]/.test(ch) ? [i] : []));
        fc.pre(letters.length > 0);
        const i = letters[pick % letters.length]!;
        const ch = checksummed[i]!;
        const flipped = checksummed.slice(0, i) + (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()) + checksummed.slice(i + 1);
        const digits = flipped.slice(2);
        if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) {
          expect(validateAddress(chain, flipped, 'to_address')).toBe(checksummed); // the flip removed the checksum
        } else {
          expect(refusal(chain, flipped).message).toMatch(/EIP-55 checksum\.$/);
        }
      }),
      { numRuns: 500 },
    );
  });
  it.each([
    ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA9604', 'expected 0x followed by 40 hexadecimal digits'], // 39 digits
    ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA960451', 'expected 0x followed by 40 hexadecimal digits'], // 41 digits
    ['d8dA6BF26964aF9D7eEd9e03E53415D37aA96045', 'expected 0x followed by 40 hexadecimal digits'],
    ['0Xd8da6bf26964af9d7eed9e03e53415d37aa96045', 'expected 0x followed by 40 hexadecimal digits'],
    ['0xg8da6bf26964af9d7eed9e03e53415d37aa96045', 'expected 0x followed by 40 hexadecimal digits'],
    ['vitalik.eth', 'expected 0x followed by 40 hexadecimal digits'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'expected 0x followed by 40 hexadecimal digits'],
    ['0x6d1e7cde53ba9467b783cb7c530ce054', 'expected 0x followed by 40 hexadecimal digits'], // a HyperCore token id
    ['', 'it is empty'],
    [' 0xd8da6bf26964af9d7eed9e03e53415d37aa96045', 'it contains spaces or other whitespace'],
    ['0xd8da6bf26964af9d7eed9e03e53415d37aa96045\n', 'it contains spaces or other whitespace'],
    ['0x0000000000000000000000000000000000000000', 'it is the zero address, which burns whatever is sent to it'],
  ])('%j is refused: %s', (address, why) => {
    for (const chain of EVM_LIKE) expect(refusal(chain, address).message).toBe(`\`to_address\` is not a valid address on ${chain}: ${why}.`);
  });
});

describe('ChainAddress on bitcoin: mainnet P2PKH (1…), P2SH (3…), P2WPKH / P2WSH (bc1q…), P2TR (bc1p…)', () => {
  /** Real mainnet addresses (genesis coinbase, BIP test vectors) with the output script each must pay to. */
  const MAINNET: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['P2PKH', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', /^76a914[0-9a-f]{40}88ac$/], // genesis block coinbase
    ['P2PKH', '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA', /^76a914[0-9a-f]{40}88ac$/], // BIP-44 vector m/44'/0'/0'/0/0
    ['P2SH', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', /^a914[0-9a-f]{40}87$/],
    ['P2SH', '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf', /^a914[0-9a-f]{40}87$/], // BIP-49 vector
    ['P2WPKH', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', /^0014[0-9a-f]{40}$/], // BIP-173
    ['P2WPKH', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', /^0014[0-9a-f]{40}$/], // BIP-84 vector
    ['P2WSH', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', /^0020[0-9a-f]{64}$/], // BIP-173
    ['P2TR', 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', /^5120[0-9a-f]{64}$/], // BIP-86 vector
    ['P2TR', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', /^5120[0-9a-f]{64}$/], // BIP-350
  ];
  it.each(MAINNET)('%s %s is accepted as it is', (_type, address, script) => {
    expect(Buffer.from(btcAddress.toOutputScript(address, networks.bitcoin)).toString('hex')).toMatch(script); // the type claimed
    expect(validateAddress('bitcoin', address, 'to_address')).toBe(address);
  });
  it('bech32 addresses written in upper case (valid per BIP-173) are returned in lower case; base58 is case-sensitive and kept', () => {
    for (const [, address] of MAINNET.filter(([t]) => t.startsWith('P2W') || t === 'P2TR')) {
      expect(validateAddress('bitcoin', address.toUpperCase(), 'to_address')).toBe(address);
    }
    refusal('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'.toLowerCase());
    refusal('bitcoin', 'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'); // mixed case is not bech32
  });
  it('a corrupted checksum is refused: any one character after the prefix replaced, in any example', () => {
    const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
    fc.assert(
      fc.property(fc.constantFrom(...MAINNET), fc.nat(), fc.nat(), ([, address], at, by) => {
        const bech = address.startsWith('bc1');
        const alphabet = bech ? BECH32 : BASE58;
        const start = bech ? 3 : 1; // keep the prefix, so only the checksum can catch the change
        const i = start + (at % (address.length - start));
        const others = [...alphabet].filter((c) => c !== address[i]);
        const corrupted = address.slice(0, i) + others[by % others.length]! + address.slice(i + 1);
        expect(refusal('bitcoin', corrupted).message).toMatch(/: (expected a mainnet .*|witness versions after Taproot .*)\.$/);
      }),
      { numRuns: 500 },
    );
    expect(refusal('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb').message).toBe(
      '`to_address` is not a valid address on bitcoin: expected a mainnet P2PKH (1…), P2SH (3…), SegWit (bc1q…) or Taproot (bc1p…) address.',
    );
  });
  it('testnet, signet and regtest addresses are refused as such', () => {
    const hash = new Uint8Array(20).fill(7);
    const xOnly = Buffer.from('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex'); // secp256k1 G
    const other = [
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', // BIP-173 testnet P2WPKH
      payments.p2pkh({ hash, network: networks.testnet }).address!,
      payments.p2sh({ hash, network: networks.testnet }).address!,
      payments.p2wpkh({ hash, network: networks.regtest }).address!,
      btcAddress.toBech32(xOnly, 1, networks.testnet.bech32),
      btcAddress.toBech32(xOnly, 1, networks.regtest.bech32),
    ];
    for (const address of other) {
      expect(refusal('bitcoin', address).message, address).toBe(
        '`to_address` is not a valid address on bitcoin: it is a testnet or regtest address, and only mainnet is served.',
      );
    }
  });
  it('property: a mainnet address of every standard type built from random keys is accepted unchanged', () => {
    const xOnlyKeys = ['79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5'];
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.constantFrom(...xOnlyKeys), (h20, h32, key) => {
        const built = [
          payments.p2pkh({ hash: h20 }).address!,
          payments.p2sh({ hash: h20 }).address!,
          payments.p2wpkh({ hash: h20 }).address!,
          payments.p2wsh({ hash: h32 }).address!,
          btcAddress.toBech32(Buffer.from(key, 'hex'), 1, 'bc'),
        ];
        for (const address of built) expect(validateAddress('bitcoin', address, 'to_address')).toBe(address);
      }),
      { numRuns: 200 },
    );
  });
  it('witness programs that are no standard output are refused: future versions, wrong lengths, a Taproot key off the curve', () => {
    const future = '`to_address` is not a valid address on bitcoin: witness versions after Taproot (bc1z…, bc1r…, …) are not spendable today, so coins sent there could be lost.';
    expect(refusal('bitcoin', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs').message).toBe(future); // BIP-350 v2 example
    expect(refusal('bitcoin', 'bc1sw50qgdz25j').message).toBe(future); // BIP-350 v16 example
    const expected = /: expected a mainnet P2PKH \(1…\), P2SH \(3…\), SegWit \(bc1q…\) or Taproot \(bc1p…\) address\.$/;
    expect(refusal('bitcoin', btcAddress.toBech32(new Uint8Array(21), 0, 'bc')).message).toMatch(expected); // v0, 21 bytes
    expect(refusal('bitcoin', btcAddress.toBech32(new Uint8Array(20), 1, 'bc')).message).toMatch(expected); // v1, 20 bytes
    expect(refusal('bitcoin', btcAddress.toBech32(new Uint8Array(32).fill(0xff), 1, 'bc')).message).toMatch(expected); // x ≥ p
    expect(refusal('bitcoin', 'bc1bxyz').message).toMatch(expected); // not bech32 at all
  });
  it.each([
    ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', /expected a mainnet/],
    ['', /it is empty\.$/],
    [' 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', /whitespace\.$/],
    [`bc1q${'q'.repeat(200_000)}`, /expected a mainnet/],
    [`1${'z'.repeat(200_000)}`, /expected a mainnet/], // refused before quadratic base58 decoding
  ])('%#: other input is refused on bitcoin', (address, why) => {
    expect(refusal('bitcoin', address).message).toMatch(why);
  });
});
