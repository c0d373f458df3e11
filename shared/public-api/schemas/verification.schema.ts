/** The answer to a serial-number verification: authenticity and stolen status, never any customer data. */
import Type from 'typebox';
import { Lang } from '../../read-models/documents.ts';

export const VerificationStatus = Type.Union([
  Type.Literal('AUTHENTIC'), Type.Literal('STOLEN'), Type.Literal('NOT_FOUND'),
]);
export type VerificationStatus = Type.Static<typeof VerificationStatus>;

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
}, { title: 'Verification' });
export type Verification = Type.Static<typeof Verification>;
