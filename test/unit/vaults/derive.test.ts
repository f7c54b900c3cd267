// Deposit addresses and keys derive from the master seed by BIP-44 (EVM, Hyperliquid) and BIP-84 (Bitcoin),
// checked against published test vectors so an address is the one any standard wallet derives from the same seed.
import * as ecc from '@bitcoinerlab/secp256k1';
import { mnemonicToSeedSync } from '@scure/bip39';
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import { createHash } from 'node:crypto';
import { bytesToHex, recoverMessageAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/errors.js';
import { MAX_INDEX, derivationPath, deriveAddress, deriveKey, parseSeed } from '../../../src/vaults/index.js';

// BIP-84's own test vector mnemonic, also the usual BIP-44 one.
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
// The Hardhat/Anvil default mnemonic, whose first accounts every EVM developer has seen.
const JUNK = 'test test test test test test test test test test test junk';

describe('Bitcoin deposit addresses are BIP-84 P2WPKH (m/84\'/0\'/0\'/0/<index>)', () => {
  const seed = parseSeed(ABANDON);

  it('matches the BIP-84 test vectors for the first two receive addresses', () => {
    expect(deriveAddress(seed, 'bip84-p2wpkh', 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(deriveAddress(seed, 'bip84-p2wpkh', 1)).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    expect(derivationPath('bip84-p2wpkh', 1)).toBe("m/84'/0'/0'/0/1");
  });

  it('derives the BIP-84 vector private keys, and a signer whose signatures verify under the address key', () => {
    const bip32 = BIP32Factory(ecc);
    const wif = (k: Uint8Array) => bip32.fromPrivateKey(k, new Uint8Array(32), networks.bitcoin).toWIF();
    const k0 = deriveKey(seed, 'bip84-p2wpkh', 0);
    expect(k0.address).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(wif(k0.revealPrivateKey())).toBe('KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d');
    expect(wif(deriveKey(seed, 'bip84-p2wpkh', 1).revealPrivateKey())).toBe('Kxpf5b8p3qX56DKEe5NqWbNUP9MnqoRFzZwHRtsFqhzuvUJsYZCy');

    const signer = k0.bitcoinSigner();
    const hash = createHash('sha256').update('sweep input 0').digest();
    const sig = signer.sign(hash);
    expect(ecc.verify(hash, signer.publicKey, sig)).toBe(true);
    expect(() => k0.evmAccount()).toThrow(RouterError);
  });
});

describe('EVM and Hyperliquid deposit addresses are BIP-44 (m/44\'/60\'/0\'/0/<index>)', () => {
  it('matches the well-known first address of the "abandon … about" mnemonic', () => {
    expect(deriveAddress(parseSeed(ABANDON), 'bip44-evm', 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('matches the Hardhat/Anvil default accounts and their private keys', async () => {
    const seed = parseSeed(JUNK);
    expect(deriveAddress(seed, 'bip44-evm', 0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(deriveAddress(seed, 'bip44-evm', 1)).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    const k1 = deriveKey(seed, 'bip44-evm', 1);
    expect(bytesToHex(k1.revealPrivateKey())).toBe('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
    expect(k1.path).toBe("m/44'/60'/0'/0/1");

    const account = k1.evmAccount();
    expect(account.address).toBe(k1.address);
    const signature = await account.signMessage({ message: 'refund order 1' });
    expect(await recoverMessageAddress({ message: 'refund order 1', signature })).toBe(k1.address);
    expect(() => k1.bitcoinSigner()).toThrow(RouterError);
  });
});

describe('An EVM deposit address is the address of the key deriveKey gives at the same index', () => {
  it('for the first 300 indexes and the last ones of the non-hardened range, under two seeds', () => {
    for (const seed of [parseSeed(ABANDON), parseSeed(JUNK)]) {
      for (const index of [...Array.from({ length: 300 }, (_, i) => i), MAX_INDEX - 2, MAX_INDEX - 1, MAX_INDEX]) {
        expect(deriveAddress(seed, 'bip44-evm', index)).toBe(deriveKey(seed, 'bip44-evm', index).address);
      }
    }
  });
});

describe('A seed given as 64 bytes of hex derives the same addresses as its mnemonic', () => {
  it('same addresses and the same public fingerprint (73c5da0a for "abandon … about")', () => {
    const hex = bytesToHex(mnemonicToSeedSync(ABANDON));
    const fromHex = parseSeed(hex);
    const fromBareHex = parseSeed(hex.slice(2).toUpperCase());
    const fromWords = parseSeed(`  ${ABANDON.toUpperCase().replace(/ /g, '\n')} `);
    for (const s of [fromHex, fromBareHex, fromWords]) {
      expect(s.fingerprint).toBe('73c5da0a');
      expect(deriveAddress(s, 'bip84-p2wpkh', 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
      expect(deriveAddress(s, 'bip44-evm', 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    }
  });
});

describe('The derivation index is a non-hardened BIP-32 index', () => {
  it('accepts 0 … 2^31-1 and refuses anything else rather than wrapping onto a used address', () => {
    const seed = parseSeed(ABANDON);
    expect(deriveAddress(seed, 'bip44-evm', MAX_INDEX)).toMatch(/^0x[0-9a-fA-F]{40}$/);
    for (const bad of [-1, MAX_INDEX + 1, 1.5, Number.NaN]) {
      expect(() => deriveAddress(seed, 'bip44-evm', bad)).toThrow(RouterError);
      expect(() => deriveAddress(seed, 'bip84-p2wpkh', bad)).toThrow(RouterError);
    }
  });
});
