/**
 * Schema helpers of the randomized scope matrix (test/api/scope-matrix.e2e-spec.ts): the root fields a matrix must
 * have a generator for, the leaf selection of a type (so a field added to a type is selected, and leak-checked,
 * without editing the matrix), and the record of which schema fields the executed queries selected (so a field
 * nobody queries fails the run instead of going untested).
 */
import {
  getNamedType,
  isEnumType,
  isObjectType,
  isScalarType,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql/index.js';

/** `Query.x` and `Mutation.y` coordinates of every root field of the schema, sorted. */
export function rootFields(schema: GraphQLSchema): string[] {
  const out: string[] = [];
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (root) for (const name of Object.keys(root.getFields())) out.push(`${root.name}.${name}`);
  }
  return out.sort();
}

const isLeaf = (t: GraphQLNamedType) => isScalarType(t) || isEnumType(t);

/** An object type whose every field is a scalar / enum without arguments (ResourceRefType, ServicePort, PageInfo, ...). */
function isLeafObject(t: GraphQLNamedType): t is GraphQLObjectType {
  return isObjectType(t) && Object.values(t.getFields()).every((f) => f.args.length === 0 && isLeaf(getNamedType(f.type)));
}

/**
 * The selection of every scalar / enum field of `typeName` without arguments, and of every argument-less field whose
 * type is a leaf object (with all its fields). Connections and fields leading to richer objects are left to the
 * caller (they need arguments or an oracle of their own).
 * @throws Error when the schema has no object type of that name
 */
export function leafSelection(schema: GraphQLSchema, typeName: string): string {
  const t = schema.getType(typeName);
  if (!isObjectType(t)) throw new Error(`leafSelection: ${typeName} is not an object type of the schema`);
  const parts: string[] = [];
  for (const f of Object.values(t.getFields())) {
    if (f.args.length > 0) continue;
    const named = getNamedType(f.type);
    if (isLeaf(named)) parts.push(f.name);
    else if (isLeafObject(named)) parts.push(`${f.name} { ${Object.keys(named.getFields()).join(' ')} }`);
  }
  return parts.join(' ');
}

/**
 * The selection of every field of `typeName`, recursively (for result types without an oracle per nesting level:
 * forecasts, tokens): scalars and enums, argument-less object fields, and Relay connections (fields with `first` /
 * `last`, paged with `page`, e.g. `first: 3`, selecting totalCount, pageInfo, edges and nodes). Other fields with
 * arguments and types already on the path (cycles) are left out.
 * @throws Error when the schema has no object type of that name
 */
export function fullSelection(schema: GraphQLSchema, typeName: string, page: string, path: readonly string[] = []): string {
  const t = schema.getType(typeName);
  if (!isObjectType(t)) throw new Error(`fullSelection: ${typeName} is not an object type of the schema`);
  const parts: string[] = [];
  for (const f of Object.values(t.getFields())) {
    const named = getNamedType(f.type);
    if (isLeaf(named)) {
      if (f.args.length === 0) parts.push(f.name);
      continue;
    }
    if (!isObjectType(named) || path.includes(named.name)) continue;
    const isConnection = f.args.some((a) => a.name === 'first') && f.args.some((a) => a.name === 'last');
    if (isConnection) {
      const node = getNamedType(named.getFields().nodes!.type).name;
      parts.push(
        `${f.name}(${page}) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { __typename } } nodes { ${fullSelection(schema, node, page, [...path, typeName, named.name])} } }`,
      );
    } else if (f.args.length === 0) {
      parts.push(`${f.name} { ${fullSelection(schema, named.name, page, [...path, typeName])} }`);
    }
  }
  return parts.join(' ');
}

/** Every `Type.field` of the object types reachable from the roots (introspection types excluded), sorted. */
export function reachableFields(schema: GraphQLSchema): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const queue: GraphQLObjectType[] = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter((t): t is GraphQLObjectType => !!t);
  while (queue.length > 0) {
    const t = queue.shift()!;
    if (seen.has(t.name) || t.name.startsWith('__')) continue;
    seen.add(t.name);
    for (const f of Object.values(t.getFields())) {
      out.push(`${t.name}.${f.name}`);
      const named = getNamedType(f.type);
      if (isObjectType(named)) queue.push(named);
    }
  }
  return out.sort();
}

/** Which schema fields the executed operations selected. */
export class FieldCoverage {
  private readonly selected = new Map<string, number>();

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * Count every field `query` selects (fragments included), by `ParentType.field`.
   * @throws GraphQLError when `query` does not parse
   */
  record(query: string): void {
    const info = new TypeInfo(this.schema);
    visit(
      parse(query),
      visitWithTypeInfo(info, {
        Field: (node) => {
          const parent = info.getParentType();
          if (!parent || node.name.value.startsWith('__')) return;
          const key = `${parent.name}.${node.name.value}`;
          this.selected.set(key, (this.selected.get(key) ?? 0) + 1);
        },
      }),
    );
  }

  /** How often `coordinate` was selected. */
  count(coordinate: string): number {
    return this.selected.get(coordinate) ?? 0;
  }

  /** The reachable fields never selected, sorted. */
  missing(): string[] {
    return reachableFields(this.schema).filter((c) => !this.selected.has(c));
  }
}
