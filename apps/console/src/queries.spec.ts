import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import * as queries from './queries';

describe("the console's GraphQL documents", () => {
  const schema = buildSchema(readFileSync(join(__dirname, '..', '..', 'api', 'schema.gql'), 'utf8'));

  it.each(Object.entries(queries))('%s is valid against apps/api/schema.gql', (_name, text) => {
    expect(validate(schema, parse(text)).map((e) => e.message)).toEqual([]);
  });
});
