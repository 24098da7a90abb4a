import AjvModule from 'ajv';
import Ajv2019Module from 'ajv/dist/2019.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { limits } from '../limits.ts';
import type { JsonObject } from './json.ts';

// ajv and ajv-formats are CommonJS whose `default` export is the class or plugin itself.
const Ajv = AjvModule.default;
const Ajv2019 = Ajv2019Module.default;
const Ajv2020 = Ajv2020Module.default;
const addFormats = formatsModule.default;

/** Returns why a value does not match the schema, or undefined when it does. */
export type SchemaCheck = (value: unknown) => string | undefined;

/**
 * A caller's JSON Schema compiled with ajv, by the draft it declares: 2020-12 (what zod and the
 * SDK emit) and 2019-09 by their own dialects, anything else as draft-07, which reads the older
 * drafts' common keywords alike. A fresh ajv instance per schema: ajv keeps every schema it
 * compiled (a leak across requests) and refuses two schemas with one `$id`.
 * Throws when the schema is not a valid JSON Schema.
 */
export function compileSchema(schema: JsonObject): SchemaCheck {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const options = { allErrors: true, strict: false } as const;
  let ajv: InstanceType<typeof Ajv>;
  let subject = schema;
  if (dialect.includes('2020-12')) ajv = new Ajv2020(options);
  else if (dialect.includes('2019-09')) ajv = new Ajv2019(options);
  else {
    ajv = new Ajv(options);
    const { $schema: _, ...rest } = schema;
    subject = rest;
  }
  addFormats(ajv);
  const validate = ajv.compile(subject);
  return (value) =>
    validate(value)
      ? undefined
      : ajv.errorsText(validate.errors, { dataVar: 'answer' }).slice(0, limits.llmErrorChars);
}

/** Why `schema` cannot be used, or undefined when it can. */
export function schemaProblem(schema: JsonObject): string | undefined {
  if (JSON.stringify(schema).length > limits.jsonSchemaChars)
    return `is longer than ${limits.jsonSchemaChars} characters`;
  try {
    compileSchema(schema);
    return undefined;
  } catch (error) {
    return `is not a valid JSON Schema: ${(error as Error).message.slice(0, limits.llmErrorChars)}`;
  }
}
