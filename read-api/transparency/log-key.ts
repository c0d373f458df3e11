/**
 * The key that signs the transparency log's checkpoints: a key of its own, never the answer-signing key, so that
 * either can be rotated or revoked alone. Every API process of one deployment takes it from TRANSPARENCY_LOG_KEY
 * (PKCS#8 PEM); one process generates it on first start into `DATA_DIR/keys/transparency-log-key.pem`, as the
 * answer-signing key is.
 */
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../../shared/config/config.ts';
import { ed25519Key, keyFromDataDir } from '../signing/signing-keys.ts';

export const logKeyFile = (dataDir: string) => join(dataDir, 'keys', 'transparency-log-key.pem');

export async function loadLogKey(config: Pick<Config, 'DATA_DIR' | 'TRANSPARENCY_LOG_KEY'>): Promise<KeyObject> {
  if (config.TRANSPARENCY_LOG_KEY) {
    // Environments that cannot hold line breaks pass the PEM with `\n` escapes.
    return ed25519Key(config.TRANSPARENCY_LOG_KEY.replace(/\\n/g, '\n'), 'TRANSPARENCY_LOG_KEY');
  }
  return (await keyFromDataDir(logKeyFile(config.DATA_DIR))).privateKey;
}
