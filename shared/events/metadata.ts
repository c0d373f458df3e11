import Type from 'typebox';

/** Metadata carried by every event. Who and why, never customer data. */
export const EventMetadata = Type.Object(
  {
    correlation_id: Type.String({ minLength: 1, maxLength: 200 }),
    causation_id: Type.String({ minLength: 1, maxLength: 200 }),
    actor: Type.String({ minLength: 1, maxLength: 200 }),
    occurred_at: Type.String({ format: 'date-time' }),
    schema_version: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type EventMetadata = Type.Static<typeof EventMetadata>;
