/**
 * An Ed25519 private key in PKCS#8 PEM, as the key settings give it: shared by the configuration's check at start
 * and the key loaders, so that both agree on what a usable key is.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';

/** The key, or undefined when `pem` is not one; `\n` escapes are read as line breaks (environments without them). */
export function readEd25519Pem(pem: string): KeyObject | undefined {
  const text = pem.replace(/\\n/g, '\n');
  if (!text.includes('-----BEGIN PRIVATE KEY-----')) return undefined;
  try {
    const key = createPrivateKey({ key: text, format: 'pem' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}
