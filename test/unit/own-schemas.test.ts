/**
 * The service compiles its own typebox schemas without ajv's meta-schema check (shared/schema/own-schemas.ts: it
 * would cost every process start about 20 ms per Ajv instance). This is that check, once, here: every schema those
 * compilers take is a valid JSON Schema, as a fresh Ajv checking against the meta-schema sees it.
 */
import { expect } from 'chai';
import { Ajv } from 'ajv';
import type { TSchema } from 'typebox';
import { Env } from '../../shared/config/config.ts';
import { eventSchemas } from '../../shared/events/index.ts';
import { EventMetadata } from '../../shared/events/metadata.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { JwkSet } from '../../shared/signing/jwk-set.ts';

function ownSchemas(): [string, TSchema][] {
  const schemas: [string, TSchema][] = [['Env', Env], ['JwkSet', JwkSet], ['EventMetadata', EventMetadata]];
  for (const [type, schema] of Object.entries(eventSchemas)) schemas.push([`event ${type}`, schema as TSchema]);
  for (const spec of publicOperations) {
    for (const [part, schema] of Object.entries({ ...spec.params, ...(spec.body ? { body: spec.body } : {}) })) {
      if (schema) schemas.push([`${spec.id} ${part}`, schema]);
    }
  }
  return schemas;
}

describe('the service\'s own schemas, compiled without ajv\'s meta-schema check', () => {
  it('are each a valid JSON Schema against the meta-schema', () => {
    const checker = new Ajv({ strict: false });
    const schemas = ownSchemas();
    expect(schemas.length, 'schemas found').to.be.above(20);
    const invalid = schemas.filter(([, schema]) => !checker.validateSchema(schema as object)).map(([name]) => `${name}: ${checker.errorsText()}`);
    expect(invalid).to.deep.equal([]);
  });

  it('tells a malformed schema from a valid one (the check can fail)', () => {
    expect(new Ajv({ strict: false }).validateSchema({ type: 'object', properties: { a: { type: 'no-such-type' } } })).to.equal(false);
  });
});
