import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiQuery, type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';

interface JsonSchemaObject {
  properties?: Record<string, SchemaObject>;
  required?: string[];
}

/** The OpenAPI 3.0 schema of a zod schema, for its input (what clients send) or output. */
export function openApiSchemaOf(schema: z.ZodType, io: 'input' | 'output'): SchemaObject & JsonSchemaObject {
  const json = z.toJSONSchema(schema, { io, target: 'openapi-3.0', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json as SchemaObject & JsonSchemaObject;
}

/**
 * Document every field of a zod query schema as an OpenAPI query parameter, from the same schema
 * that validates it (no second description to drift). Types, bounds and defaults come from the
 * parsed (output) form; whether a parameter is required from the input form.
 */
export function ApiZodQuery(schema: z.ZodObject): MethodDecorator {
  const output = openApiSchemaOf(schema, 'output');
  const required = new Set(openApiSchemaOf(schema, 'input').required ?? []);
  return applyDecorators(
    ...Object.entries(output.properties ?? {}).map(([name, property]) =>
      ApiQuery({ name, required: required.has(name), schema: property, ...(property.description ? { description: property.description } : {}) }),
    ),
  );
}

/** Document a JSON request body from its zod schema. */
export function ApiZodBody(schema: z.ZodType, description?: string): MethodDecorator {
  return ApiBody({ schema: openApiSchemaOf(schema, 'input'), required: false, ...(description ? { description } : {}) });
}
