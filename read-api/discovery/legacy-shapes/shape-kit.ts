/** Small builders for the section 2.4 shapes, which are pydantic models: optional fields are often nullable. */
import Type, { type TSchema, type TSchemaOptions } from 'typebox';

/** `T | null`; `options` (a default, say) go on the union. */
export const nullable = <T extends TSchema>(schema: T, options?: TSchemaOptions) => Type.Union([schema, Type.Null()], options);
/** `T | null`, may be left out. */
export const optionalNullable = <T extends TSchema>(schema: T) => Type.Optional(nullable(schema));

export const Email = () => Type.String({ format: 'email' });
export const DateTime = () => Type.String({ format: 'date-time' });
export const DateOnly = () => Type.String({ format: 'date' });
export const Binary = () => Type.String({ format: 'binary' });
/** A free-form JSON object. */
export const AnyObject = () => Type.Object({}, { additionalProperties: true });
