import { z } from 'zod';
import { queryForms } from '../wire/query-forms.ts';

type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

const localRef = '#/$defs/';
const componentRef = '#/components/schemas/';

/** A named schema met while converting: its definition and the zod schema that named it. */
interface Definition {
  id: string;
  io: Io;
  json: JsonSchema;
  zod: z.core.$ZodType;
}

/** A `$ref` written by a conversion, pointed at its component once every name is known. */
interface Reference {
  node: JsonSchema;
  id: string;
  io: Io;
}

/**
 * Converts the routes' zod schemas for the OpenAPI document and gathers the named ones
 * (`.meta({ id: 'Function' })`) into `components.schemas`, so that generated clients give users
 * types they can name. A schema used both ways whose request form differs from its answer (a
 * default makes a field optional to send but always answered) has its request form named
 * `<id>Input`; two schemas that claim one name with different shapes fail the document.
 */
export function schemaComponents() {
  const definitions: Definition[] = [];
  const references: Reference[] = [];

  function toJsonSchema(schema: z.ZodType, io: Io): JsonSchema {
    const named = new Map<string, z.core.$ZodType>();
    // A copy: zod shares the objects of a schema's metadata between conversions, and the
    // references below are rewritten in place.
    const converted = structuredClone(
      z.toJSONSchema(schema, {
        io,
        unrepresentable: 'any',
        override: ({ zodSchema, jsonSchema }) => {
          const id = z.globalRegistry.get(zodSchema)?.id;
          if (id !== undefined) named.set(id, zodSchema);
          showQueryForm(zodSchema, jsonSchema);
        },
      }),
    ) as JsonSchema;
    // The document's dialect (OpenAPI 3.1 is JSON Schema 2020-12) is said once, not per schema.
    delete converted.$schema;
    const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
    delete converted.$defs;
    for (const [id, json] of Object.entries(defs)) {
      const zod = named.get(id);
      // zod names a schema itself only when it recurses without an id: give it one.
      if (!zod) throw new Error(`A recursive schema has no id (zod calls it ${id}): name it with .meta({ id }).`);
      definitions.push({ id, io, json, zod });
    }
    for (const root of [converted, ...Object.values(defs)]) {
      collectReferences(root, io, references);
      dropRefusedFields(root);
    }
    return converted;
  }

  /** The named schemas, their references pointed at them: call once every schema is converted. */
  function schemas(): Record<string, JsonSchema> {
    const answered = new Set(definitions.filter((one) => one.io === 'output').map((one) => one.id));
    const inputName = new Map<string, string>();
    for (const { id, io, zod } of definitions) {
      if (io === 'input' && !inputName.has(id)) {
        inputName.set(id, answered.has(id) && formsDiffer(zod) ? `${id}Input` : id);
      }
    }
    const nameOf = (id: string, io: Io) => (io === 'input' ? inputName.get(id)! : id);
    for (const { node, id, io } of references) node.$ref = `${componentRef}${nameOf(id, io)}`;
    const components: Record<string, JsonSchema> = {};
    for (const { id, io, json } of definitions) {
      const name = nameOf(id, io);
      const known = components[name];
      if (known && JSON.stringify(known) !== JSON.stringify(json)) {
        throw new Error(`Two schemas are named ${name} with different shapes: give each its own id.`);
      }
      components[name] = json;
    }
    return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
  }

  return { toJsonSchema, schemas };
}

export type SchemaComponents = ReturnType<typeof schemaComponents>;

/** Whether a schema sent in a request has another shape than answered (its named parts included). */
function formsDiffer(schema: z.core.$ZodType): boolean {
  const form = (io: Io) => JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: 'any' }));
  return form('input') !== form('output');
}

function collectReferences(value: unknown, io: Io, references: Reference[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectReferences(item, io, references);
  } else if (value !== null && typeof value === 'object') {
    const node = value as JsonSchema;
    if (typeof node.$ref === 'string' && node.$ref.startsWith(localRef)) {
      references.push({ node, id: node.$ref.slice(localRef.length), io });
    }
    for (const child of Object.values(node)) collectReferences(child, io, references);
  }
}

/**
 * A field no value satisfies (`z.never()`, kept for its message: a secret's name is fixed) is
 * left out of a closed object, which refuses it already: generated clients would type it
 * `unknown`, as if any value were taken.
 */
function dropRefusedFields(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) dropRefusedFields(item);
  } else if (value !== null && typeof value === 'object') {
    const node = value as JsonSchema;
    const properties = node.properties as Record<string, JsonSchema> | undefined;
    if (properties && node.additionalProperties === false) {
      for (const [name, property] of Object.entries(properties)) {
        if (JSON.stringify(property) !== '{"not":{}}') continue;
        delete properties[name];
        if (Array.isArray(node.required)) node.required = node.required.filter((one) => one !== name);
      }
    }
    for (const child of Object.values(node)) dropRefusedFields(child);
  }
}

/** A query parameter's value as a client sends it (`limit: 10`), not as text: src/wire/query-forms.ts. */
function showQueryForm(schema: z.core.$ZodType, json: JsonSchema): void {
  const form = queryForms.get(schema);
  if (!form) return;
  for (const key of ['type', 'pattern', 'format', 'enum', 'minLength', 'maxLength']) delete json[key];
  Object.assign(json, form);
}
