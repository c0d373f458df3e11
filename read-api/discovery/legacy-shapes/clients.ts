/** Section 2.4 "Clients and certificates" shapes: documented for completeness, used by no public operation. */
import Type from 'typebox';
import { Email, optionalNullable } from './shape-kit.ts';

export const ClientBase = Type.Object({
  last_name: Type.String({ minLength: 1, maxLength: 100 }),
  first_name: Type.String({ minLength: 1, maxLength: 100 }),
  email: Email(),
  phone: Type.String({ minLength: 1 }),
  address: optionalNullable(Type.String()),
  address2: optionalNullable(Type.String()),
  postal_code: optionalNullable(Type.String()),
  city: optionalNullable(Type.String()),
  country: optionalNullable(Type.String()),
}, { title: 'ClientBase' });

const CertificateRequest = Type.Object({
  serial_number: Type.String(),
  client_name: Type.String(),
  client_address: optionalNullable(Type.String()),
  client_postal_code: optionalNullable(Type.String()),
  client_city: optionalNullable(Type.String()),
  client_country: optionalNullable(Type.String()),
}, { title: 'CertificateRequest' });

export const clientShapes = [ClientBase, CertificateRequest];
