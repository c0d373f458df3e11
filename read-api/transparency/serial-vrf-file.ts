/**
 * The serials' VRF evaluations kept in `DATA_DIR/transparency/serial-vrf-<VRF public key, hex>.txt`, so that a start
 * builds the serial index again without computing them (milliseconds a serial: bench/README.md). One line per
 * evaluation, `<serial> <key> [<proof>]` (base64), appended as computed; a later line for a serial (its proof added)
 * replaces an earlier. Named by the VRF key: after the log key's rotation the file of the old one is left aside. A
 * torn last line (a crash mid-write) is skipped, and computed again when needed. It lists every registered serial,
 * which the VRF keeps out of the index's keys: owner-only, as the event store (README.md, "Security").
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SerialVrf, VrfMemo } from '../../shared/read-model/transparency/serial-index.ts';

export function serialVrfFile(dataDir: string, vrfPublicKey: Uint8Array): VrfMemo {
  const dir = join(dataDir, 'transparency');
  const file = join(dir, `serial-vrf-${Buffer.from(vrfPublicKey).toString('hex')}.txt`);
  const kept = new Map<string, SerialVrf>();
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    const text = readFileSync(file, 'utf8');
    // A torn last line is ended, so that the next evaluation appended is a line of its own rather than its tail.
    if (!text.endsWith('\n')) appendFileSync(file, '\n');
    for (const line of text.split('\n')) {
      const [serial, key, proof, ...rest] = line.split(' ');
      const keyBytes = Buffer.from(key ?? '', 'base64');
      const proofBytes = proof === undefined ? undefined : Buffer.from(proof, 'base64');
      if (!serial || keyBytes.length !== 32 || (proofBytes !== undefined && proofBytes.length !== 80) || rest.length > 0) continue;
      kept.set(serial, { key: keyBytes, proof: proofBytes });
    }
  } else {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  return {
    get: (serial) => kept.get(serial),
    remember: (serial, evaluation) => {
      kept.set(serial, evaluation);
      const proof = evaluation.proof ? ` ${evaluation.proof.toString('base64')}` : '';
      appendFileSync(file, `${serial} ${evaluation.key.toString('base64')}${proof}\n`, { mode: 0o600 });
    },
  };
}
