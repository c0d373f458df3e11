/** Section 2.4 "Accounts and sign-in" shapes: documented for completeness, used by no public operation. */
import Type from 'typebox';
import { AnyObject, DateTime, Email, nullable, optionalNullable } from './shape-kit.ts';

const AcceptInviteRequest = Type.Object({
  token: Type.String(),
  first_name: Type.String({ minLength: 1, maxLength: 100 }),
  last_name: Type.String({ minLength: 1, maxLength: 100 }),
  password: Type.String({ minLength: 10 }),
  phone: Type.String({ minLength: 10, maxLength: 20 }),
}, { title: 'AcceptInviteRequest' });

const InviteRequest = Type.Object({
  email: Email(),
  role: Type.Optional(Type.String({ default: 'horloger' })),
  tools: Type.Optional(Type.Array(Type.String(), { default: [] })),
}, { title: 'InviteRequest' });

const InviteResponse = Type.Object({
  message: Type.String(), email: Type.String(), expires_at: DateTime(),
}, { title: 'InviteResponse' });

const MagicLinkRequest = Type.Object({ email: Type.String() }, { title: 'MagicLinkRequest' });
const MagicLinkVerify = Type.Object({ token: Type.String() }, { title: 'MagicLinkVerify' });
const RefreshRequest = Type.Object({ refresh_token: Type.String() }, { title: 'RefreshRequest' });

const OTPVerifyRequest = Type.Object({
  email: Email(), code: Type.String({ minLength: 6, maxLength: 6 }),
}, { title: 'OTPVerifyRequest' });

const ChangePasswordRequest = Type.Object({
  current_password: Type.String(), new_password: Type.String({ minLength: 10 }),
}, { title: 'ChangePasswordRequest' });

const ProfileUpdate = Type.Object({
  first_name: optionalNullable(Type.String()),
  last_name: optionalNullable(Type.String()),
  phone: optionalNullable(Type.String()),
  email_notifications: optionalNullable(Type.Boolean()),
}, { title: 'ProfileUpdate' });

const UserOut = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  role: Type.String(),
  status: Type.String(),
  tools: Type.Array(Type.String()),
  last_login: Type.Optional(nullable(DateTime())),
  created_at: DateTime(),
}, { title: 'UserOut' });

const UserUpdate = Type.Object({
  role: optionalNullable(Type.String()),
  status: optionalNullable(Type.String()),
  phone: optionalNullable(Type.String()),
  tools: optionalNullable(Type.Array(Type.String())),
}, { title: 'UserUpdate' });

const ClubTokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Optional(Type.String({ default: 'bearer' })),
  client: AnyObject(),
}, { title: 'ClubTokenResponse' });

const ClubClientUpdate = Type.Object({
  phone: optionalNullable(Type.String()),
  address: optionalNullable(Type.String()),
  city: optionalNullable(Type.String()),
  country: optionalNullable(Type.String()),
  preferences: optionalNullable(AnyObject()),
}, { title: 'ClubClientUpdate' });

const ClubSavCreate = Type.Object({
  watch_serial: Type.String(),
  problem_description: Type.String(),
  watch_model: optionalNullable(Type.String()),
  client_name: optionalNullable(Type.String()),
  client_phone: optionalNullable(Type.String()),
}, { title: 'ClubSavCreate' });

export const accountShapes = [
  AcceptInviteRequest, InviteRequest, InviteResponse, MagicLinkRequest, MagicLinkVerify, RefreshRequest, OTPVerifyRequest,
  ChangePasswordRequest, ProfileUpdate, UserOut, UserUpdate, ClubTokenResponse, ClubClientUpdate, ClubSavCreate,
];
