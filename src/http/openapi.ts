import { z } from 'zod';
import { formats } from '../detect/formats.ts';
import { formatTypes, parseOptionsSchema } from '../options/parse-options.ts';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; items?: JsonSchema };

/** Options the schema accepts only to refuse them by name; not part of the parse interface. */
const refusedOptions = [
  'actions',
  'waitFor',
  'location',
  'mobile',
  'maxAge',
  'minAge',
  'storeInCache',
  'fastMode',
];

/** The options schema as JSON Schema, from the very zod schema that validates requests. */
function optionsJsonSchema(): JsonSchema {
  const { $schema: _, ...schema } = z.toJSONSchema(parseOptionsSchema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  const props = schema.properties!;
  for (const key of refusedOptions) delete props[key];
  // The string shorthands are accepted by preprocessing, which JSON Schema cannot see.
  const formatItems = props.formats!.items!;
  props.formats!.items = { anyOf: [{ type: 'string', enum: [...formatTypes] }, formatItems] };
  const parserItems = props.parsers!.items!;
  props.parsers!.items = { anyOf: [{ type: 'string', enum: ['pdf'] }, parserItems] };
  return schema;
}

const errorBody = (code?: string): JsonSchema => ({
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', const: false },
    ...(code ? { code: { type: 'string', examples: [code] } } : { code: { type: 'string' } }),
    error: { type: 'string' },
    details: {},
  },
});

const errorOnly: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' } },
};

export function buildOpenApiDocument(): Record<string, unknown> {
  const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Quire',
      version: '2',
      description:
        'Firecrawl-compatible document parsing. Every /v2 route needs `Authorization: Bearer <key>`.',
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: { ParseOptions: optionsJsonSchema() },
    },
    security: [{ bearerAuth: [] }],
    paths: {
      '/health': {
        get: {
          operationId: 'health',
          security: [],
          responses: { '200': { description: 'Ready', content: json({ type: 'object' }) } },
        },
      },
      '/v2/parse': {
        post: {
          operationId: 'parseFile',
          summary: 'Upload a file and get its parsed content',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['file'],
                  properties: {
                    file: {
                      type: 'string',
                      format: 'binary',
                      description: `At most 50 MB. Extensions: ${formats.flatMap((f) => f.extensions).join(', ')}.`,
                    },
                    options: { $ref: '#/components/schemas/ParseOptions' },
                  },
                },
                encoding: { options: { contentType: 'application/json' } },
              },
            },
          },
          responses: {
            '200': {
              description: 'The parsed document in the v2 envelope',
              content: json({
                type: 'object',
                required: ['success', 'data'],
                properties: { success: { type: 'boolean' }, data: { type: 'object' } },
              }),
            },
            '400': {
              description: 'Invalid request or refused document',
              content: json(errorBody('BAD_REQUEST')),
            },
            '401': { description: 'Missing or unknown API key', content: json(errorBody()) },
            '402': { description: 'Payment required', content: json(errorOnly) },
            '408': { description: 'Timeout', content: json(errorBody('SCRAPE_TIMEOUT')) },
            '429': { description: 'Rate or concurrency limit exceeded', content: json(errorOnly) },
            '500': { description: 'Unexpected server error', content: json(errorBody('UNKNOWN_ERROR')) },
            '501': {
              description: 'A requested feature is not implemented',
              content: json(errorBody('NOT_IMPLEMENTED')),
            },
          },
        },
      },
    },
  };
}
