/**
 * RS256 key pairs for the stand-in token issuers (identity provider, metadata server). Generating
 * a 2048-bit RSA key costs more CPU than the rest of a test's setup, so a test process generates
 * each pair once and lends it to one issuer at a time: issuers open side by side never share a
 * key, and one that closed hands its pair to the next.
 */
import { generateKeyPair } from "jose";

export interface LentKeyPair {
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  /** Gives the pair back for the next issuer; later calls do nothing. */
  release(): void;
}

const idle: CryptoKeyPair[] = [];

/** An RS256 key pair (extractable) that no other open issuer of this process holds. */
export async function lendKeyPair(): Promise<LentKeyPair> {
  const pair = idle.pop() ?? await generateKeyPair("RS256", { extractable: true });
  let released = false;
  return {
    publicKey: pair.publicKey,
    privateKey: pair.privateKey,
    release() {
      if (released) return;
      released = true;
      idle.push(pair);
    },
  };
}
