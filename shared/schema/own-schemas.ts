/**
 * Ajv options for compiling the service's own typebox schemas. `validateSchema: false`: ajv would first check each
 * schema against the JSON Schema meta-schema, compiling that meta-schema in every Ajv instance (about 20 ms each,
 * paid at every process start before the first answer). Typebox builds these schemas, and
 * test/unit/own-schemas.test.ts checks every one of them against the meta-schema instead.
 */
export const OWN_SCHEMAS = { validateSchema: false } as const;
