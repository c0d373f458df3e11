/** Section 2.4 "Inventory and notifications" shapes: documented for completeness, used by no public operation. */
import Type from 'typebox';
import { DateTime, nullable, optionalNullable } from './shape-kit.ts';

const MovementCreate = Type.Object({
  part_id: Type.Integer(), type: Type.String(), quantity: Type.Integer(), note: optionalNullable(Type.String()),
}, { title: 'MovementCreate' });

const CategoryUpdate = Type.Object({
  default_threshold: Type.Integer(),
  orange_pct: Type.Optional(nullable(Type.Integer(), { default: 10 })),
}, { title: 'CategoryUpdate' });

const NotificationOut = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  title: Type.String(),
  message: optionalNullable(Type.String()),
  link: optionalNullable(Type.String()),
  read: Type.Boolean(),
  created_at: DateTime(),
}, { title: 'NotificationOut' });

const NotificationCount = Type.Object({
  unread: Type.Integer(), notifications: Type.Array(NotificationOut),
}, { title: 'NotificationCount' });

export const inventoryShapes = [MovementCreate, CategoryUpdate, NotificationOut, NotificationCount];
