/**
 * The REST response classes and GraphQL object types of the fleet-graph resources, built once at start-up from
 * their declarations (libs/domain fleet-graph.resources.ts), so a resource's shape is written in one place: a field
 * declared there is documented in OpenAPI and exposed in the GraphQL schema without a further edit.
 *
 * Each class gets exactly the metadata the hand-written decorators gave it: `design:type` (what TypeScript's
 * `emitDecoratorMetadata` would emit for the property), then `@ApiProperty({ type, enum?, ...rest })` and
 * `@Field(() => type, { nullable?, description? })` per field in declaration order, then `@ObjectType(name)`.
 * The OpenAPI document and `apps/api/schema.gql` are the same as with hand-written classes (both are pinned by tests).
 */
import 'reflect-metadata';
import type { Type } from '@nestjs/common';
import { Field, Float, ID, Int, ObjectType, type FieldOptions, type ReturnTypeFuncValue } from '@nestjs/graphql';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import type { ResourceDecl, ResourceField } from '@app/domain';

/** A GraphQL field a transport adds to a declared resource (a computed value, e.g. a count of an embedded list). */
export interface ExtraGqlField {
  type: () => ReturnTypeFuncValue;
  options?: FieldOptions;
}

const restClasses = new Map<ResourceDecl, Type<unknown>>();
const gqlClasses = new Map<ResourceDecl, Type<unknown>>();

/** An empty class whose `name` is `name` (the OpenAPI schema name of a REST class). */
function namedClass(name: string): Type<unknown> {
  return { [name]: class {} }[name] as Type<unknown>;
}

/** The constructor TypeScript's decorator metadata names for a field's value type. */
function designTypeOf(f: ResourceField): unknown {
  if (f.type === 'int' || f.type === 'float') return Number;
  if (f.type === 'boolean') return Boolean;
  if (f.type === 'string[]' || f.type === 'list') return Array;
  return String;
}

/**
 * The REST response class of a resource (OpenAPI schema `decl.rest`), built on first use.
 * @throws Error when the declaration has no REST name (a programming error)
 */
export function restClassOf(decl: ResourceDecl): Type<unknown> {
  const known = restClasses.get(decl);
  if (known) return known;
  if (!decl.rest) throw new Error(`fleet-graph resource ${decl.gql} has no REST class`);
  const cls = namedClass(decl.rest);
  for (const [key, f] of Object.entries(decl.fields)) {
    if (f.rest === false) continue;
    const type = f.type === 'list' ? [restClassOf(f.of!)] : f.type === 'string[]' ? [String] : f.type === 'int' || f.type === 'float' ? Number : f.type === 'boolean' ? Boolean : String;
    Reflect.defineMetadata('design:type', designTypeOf(f), cls.prototype, key);
    const options = { type, ...(f.values ? { enum: [...f.values] } : {}), ...(f.rest ?? {}) } as ApiPropertyOptions;
    ApiProperty(options)(cls.prototype, key);
  }
  restClasses.set(decl, cls);
  return cls;
}

/** The GraphQL object type of a resource (named `decl.gql`), built on first use, with `extra` fields added. */
export function gqlClassOf(decl: ResourceDecl, extra: Record<string, ExtraGqlField> = {}): Type<unknown> {
  const known = gqlClasses.get(decl);
  if (known) return known;
  const cls = namedClass(decl.gql);
  for (const [key, f] of Object.entries(decl.fields)) {
    if (f.gql === false) continue;
    const gqlType = (): ReturnTypeFuncValue => {
      switch (f.type) {
        case 'list':
          return [gqlClassOf(f.of!)];
        case 'string[]':
          return [String];
        case 'id':
          return ID;
        case 'int':
          return Int;
        case 'float':
          return Float;
        case 'boolean':
          return Boolean;
        default:
          return String;
      }
    };
    Reflect.defineMetadata('design:type', designTypeOf(f), cls.prototype, key);
    Field(gqlType, { ...(f.nullable ? { nullable: true } : {}), ...(f.gql?.description ? { description: f.gql.description } : {}) })(cls.prototype, key);
  }
  for (const [key, e] of Object.entries(extra)) Field(e.type, e.options ?? {})(cls.prototype, key);
  ObjectType(decl.gql, decl.gqlDescription ? { description: decl.gqlDescription } : {})(cls);
  gqlClasses.set(decl, cls);
  return cls;
}
