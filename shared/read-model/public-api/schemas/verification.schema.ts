/** The answer to a serial-number verification: authenticity and stolen status, never any customer data. */
import Type from 'typebox';
import { Lang } from '../../documents/documents.ts';

export const VerificationStatus = Type.Union([
  Type.Literal('AUTHENTIC'), Type.Literal('STOLEN'), Type.Literal('NOT_FOUND'),
]);
export type VerificationStatus = Type.Static<typeof VerificationStatus>;

/**
 * The proof of a verification's status in the serial index at a signed checkpoint (docs/audit.md, "Serial index
 * proofs"): checked with the log's key and the checkpoint alone (`watchcat receipt verify`).
 */
const IndexProof = Type.Object({
  checkpoint: Type.String({ description: 'The signed checkpoint (C2SP signed note, with the cosignatures gathered) whose `watchcat/serial-index/v1` line commits the index root and VRF key.' }),
  vrf_proof: Type.String({ description: 'Base64: the RFC 9381 proof (ECVRF-EDWARDS25519-SHA512-ELL2) of the serial\'s key in the index.' }),
  index_proof: Type.String({ description: 'Base64: the prefix tree\'s proof of that key\'s status, or of its absence for NOT_FOUND.' }),
}, { title: 'IndexProof' });

export const Verification = Type.Object({
  serial: Type.String(),
  verification_status: VerificationStatus,
  stolen: Type.Boolean(),
  details: Type.Union([
    Type.Object({
      model: Type.String(), reference: Type.String(), collection: Type.String(), manufacture_year: Type.Integer(),
    }),
    Type.Null(),
  ]),
  checked_at: Type.String({ format: 'date-time' }),
  message: Type.String(),
  lang: Lang,
  /** Only with `proof=index`: the status above is the one proved, at the checkpoint the proof carries. */
  proof: Type.Optional(IndexProof),
}, { title: 'Verification' });
export type Verification = Type.Static<typeof Verification>;
