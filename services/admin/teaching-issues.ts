/**
 * Issues that teach (issue 44): a back-office user who sent a field of the wrong type, left one out or added one is
 * told what the field takes, read from the document's schema at the issue's place. The issue keeps pydantic's
 * `type` and its message as a prefix, so a client reads it as any other 422 (docs/api.md); the words follow a `;`
 * and are also `ctx.expected`. A number sent as a string says how to write it (`"12 500"`: write 12500).
 */
import type { Loc, ValidationIssue } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { expectedShape, type ShapeSchema } from './expected-shape.ts';

/** Pydantic's type errors: the value is there, of another type. */
const TYPE_ERRORS = new Set([
  'string_type', 'int_type', 'int_from_float', 'float_type', 'bool_type', 'dict_type', 'list_type', 'model_attributes_type',
]);

/** `found` with the shape its field takes, when it is a type error, a missing field or a property too many. */
export function teachingIssue(root: ShapeSchema, found: ValidationIssue): ValidationIssue {
  if (found.type === 'extra_forbidden') {
    const parent = schemaAt(root, found.loc.slice(0, -1));
    return parent === undefined ? found : taught(found, expectedShape(parent));
  }
  if (found.type !== 'missing' && !TYPE_ERRORS.has(found.type)) return found;
  const schema = schemaAt(root, found.loc);
  if (schema === undefined) return found;
  const expected = expectedShape(schema);
  const numeric = schema.type === 'number' || schema.type === 'integer';
  const written = numeric && typeof found.input === 'string' ? `, not a string${howToWrite(found.input)}` : '';
  return taught(found, expected, written);
}

function taught(found: ValidationIssue, expected: string, after = ''): ValidationIssue {
  return { ...found, msg: `${found.msg}; expected ${expected}${after}`, ctx: { ...found.ctx, expected } };
}

/**
 * The schema of the value at `loc` (`["body", "images", 0, "alt"]`) under `root`, the document's, or undefined where
 * the document has no such place (a property it does not have, a name refused by a record, marked `[key]`).
 */
function schemaAt(root: ShapeSchema, loc: Loc): ShapeSchema | undefined {
  let schema: ShapeSchema | undefined = root;
  for (const step of loc.slice(1)) {
    if (schema === undefined || step === '[key]') return undefined;
    schema = typeof step === 'number' ? schema.items : propertySchema(schema, step);
  }
  return schema;
}

function propertySchema(schema: ShapeSchema, name: string): ShapeSchema | undefined {
  if (schema.properties && Object.hasOwn(schema.properties, name)) return schema.properties[name];
  for (const [pattern, value] of Object.entries(schema.patternProperties ?? {})) if (new RegExp(pattern, 'u').test(name)) return value;
  return undefined;
}

/** `: write 12500 without quotes or spaces` for `"12 500"`: how a number typed as text is written in JSON. */
function howToWrite(sent: string): string {
  const spaced = /\d[\s_\u00a0\u202f]+\d/u.test(sent);
  const comma = /\d,\d/.test(sent);
  const plain = sent.trim().replace(/[\s_\u00a0\u202f]/gu, '').replace(',', '.');
  if (!/^-?\d+(\.\d+)?$/.test(plain)) return '';
  return `: write ${Number(plain)} without quotes${spaced ? ' or spaces' : ''}${comma ? ', with a point before the decimals' : ''}`;
}
