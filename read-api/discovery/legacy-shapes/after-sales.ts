/** Section 2.4 "Service requests (after-sales)" shapes: documented for completeness, used by no public operation. */
import Type from 'typebox';
import { ClientBase } from './clients.ts';
import { AnyObject, Binary, DateOnly, DateTime, Email, nullable, optionalNullable } from './shape-kit.ts';

/** The seed names it but does not show its fields. */
const WatchBase = Type.Object({}, { title: 'WatchBase', additionalProperties: true, description: 'Fields not shown.' });

const SavCreate = Type.Object({
  client: ClientBase,
  watch: WatchBase,
  reason: Type.String({ minLength: 1 }),
  reason_other: optionalNullable(Type.String()),
  issue_description: optionalNullable(Type.String()),
  shipping_method: optionalNullable(Type.String()),
  ai_followup_data: optionalNullable(AnyObject()),
  lang: Type.Optional(nullable(Type.String(), { default: 'fr' })),
  send_email: Type.Optional(nullable(Type.Boolean(), { default: true })),
}, { title: 'SavCreate' });

const SavListItem = Type.Object({
  id: Type.Integer(),
  reference: Type.String(),
  status: Type.String(),
  client_last_name: Type.String(),
  client_first_name: Type.String(),
  client_email: Type.String(),
  client_phone: nullable(Type.String()),
  watch_serial: Type.String(),
  watch_model: nullable(Type.String()),
  reason: Type.String(),
  reason_other: nullable(Type.String()),
  quote_amount: nullable(Type.String()),
  payment_status: nullable(Type.String()),
  stolen_check: nullable(Type.Boolean()),
  warranty: nullable(Type.Boolean()),
  warranty_days: nullable(Type.Integer()),
  reception_date: nullable(DateOnly()),
  reminders_sent: Type.Integer(),
  assigned_to: nullable(Type.Integer()),
  repair_assigned_to: nullable(Type.Integer()),
  created_at: DateTime(),
  updated_at: DateTime(),
  shipping_tracking: optionalNullable(Type.String()),
  return_tracking: optionalNullable(Type.String()),
}, { title: 'SavListItem' });

const SavAssign = Type.Object({
  user_id: Type.Integer(), phase: Type.String({ pattern: '^(diagnostic|repair)$' }),
}, { title: 'SavAssign' });

const SavDiagnostic = Type.Object({
  watchmaker_actions: Type.String(), watchmaker_parts: Type.String(),
}, { title: 'SavDiagnostic' });

const SavPayment = Type.Object({
  payment_method: Type.Union([Type.Literal('virement'), Type.Literal('cb'), Type.Literal('stripe'), Type.Literal('garantie')]),
}, { title: 'SavPayment' });

const SavQuote = Type.Object({
  quote_amount: Type.Union([Type.Number({ minimum: 0 }), Type.String()]),
  odoo_invoice_ref: optionalNullable(Type.String()),
  odoo_invoice_date: optionalNullable(DateOnly()),
}, { title: 'SavQuote' });

const SavQuoteSent = Type.Object({ sent: Type.Optional(Type.Boolean({ default: true })) }, { title: 'SavQuoteSent' });

const SavShipReturn = Type.Object({
  return_tracking: Type.String(),
  return_carrier: optionalNullable(Type.String()),
  return_date: optionalNullable(DateOnly()),
}, { title: 'SavShipReturn' });

const SavStats = Type.Object({
  total: Type.Integer(),
  by_status: Type.Object({}, { additionalProperties: true }),
  total_quotes: Type.String(),
  avg_days: Type.Number(),
  warranty_rate: Type.Number(),
  overdue_count: Type.Integer(),
  paid_quotes: Type.Optional(Type.String({ default: '0' })),
}, { title: 'SavStats' });

const SavStolenCheck = Type.Object({ stolen: Type.Boolean() }, { title: 'SavStolenCheck' });

const SavUpdateClient = Type.Object({
  last_name: optionalNullable(Type.String()),
  first_name: optionalNullable(Type.String()),
  email: optionalNullable(Email()),
  phone: optionalNullable(Type.String()),
  address: optionalNullable(Type.String()),
  address2: optionalNullable(Type.String()),
  postal_code: optionalNullable(Type.String()),
  city: optionalNullable(Type.String()),
  country: optionalNullable(Type.String()),
}, { title: 'SavUpdateClient' });

const SavUpdateReason = Type.Object({
  reason: optionalNullable(Type.String()),
  reason_other: optionalNullable(Type.String()),
  issue_description: optionalNullable(Type.String()),
  ai_followup_data: optionalNullable(AnyObject()),
}, { title: 'SavUpdateReason' });

const SavUpdateReception = Type.Object({
  reception_date: DateOnly(),
  awaiting_watch: Type.Optional(Type.Boolean({ default: false })),
  reception_condition: Type.Optional(Type.String({ default: '' })),
}, { title: 'SavUpdateReception' });

const SavUpdateShipping = Type.Object({
  shipping_date: optionalNullable(DateOnly()),
  shipping_carrier: optionalNullable(Type.String()),
  shipping_tracking: optionalNullable(Type.String()),
  return_tracking: optionalNullable(Type.String()),
}, { title: 'SavUpdateShipping' });

const SavUpdateWatch = Type.Object({
  model: optionalNullable(Type.String()),
  serial: optionalNullable(Type.String()),
  invoice: optionalNullable(Type.String()),
  purchase_date: optionalNullable(DateOnly()),
}, { title: 'SavUpdateWatch' });

const NoteCreate = Type.Object({ content: Type.String({ minLength: 1 }) }, { title: 'NoteCreate' });

const NoteResponse = Type.Object({
  id: Type.Integer(), user_name: Type.String(), content: Type.String(), created_at: DateTime(),
}, { title: 'NoteResponse' });

const PhotoResponse = Type.Object({
  id: Type.Integer(), filename: Type.String(), filepath: Type.String(), phase: Type.String(), created_at: DateTime(),
}, { title: 'PhotoResponse' });

const PhotoUpload = Type.Object({ file: Binary() }, { title: 'PhotoUpload' });

const AddPartLine = Type.Object({
  sav_id: Type.Integer(),
  designation: Type.String(),
  tarif_part_id: optionalNullable(Type.Integer()),
  category: Type.Optional(Type.String({ default: 'Autre' })),
  quantity: Type.Optional(Type.Integer({ default: 1 })),
}, { title: 'AddPartLine' });

const UpdatePartLine = Type.Object({
  quantity: optionalNullable(Type.Integer()),
  price_ht: optionalNullable(Type.Number()),
}, { title: 'UpdatePartLine' });

export const afterSalesShapes = [
  WatchBase, SavCreate, SavListItem, SavAssign, SavDiagnostic, SavPayment, SavQuote, SavQuoteSent, SavShipReturn, SavStats,
  SavStolenCheck, SavUpdateClient, SavUpdateReason, SavUpdateReception, SavUpdateShipping, SavUpdateWatch, NoteCreate,
  NoteResponse, PhotoResponse, PhotoUpload, AddPartLine, UpdatePartLine,
];
