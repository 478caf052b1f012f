import { JsonType, ReferenceKind, wrap, type EntityName, type EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { jsonbParam } from './jsonb-param.ts';

/**
 * The columns a plain statement writes a whole row of `entity` to, as the entity's metadata names
 * them rather than a copy that drifts from it: every stored property holding one column, in the
 * order the entity declares them. `values` gives a row's values in that order: a relation as its
 * key, a JSON column through the storable boundary (jsonb-param.ts), a value left unset as null.
 */
export function entityColumns<T extends object>(em: EntityManager, entity: EntityName<T>) {
  const props = em.getMetadata().find(entity)!.props.filter(stored);
  return {
    names: props.map((prop) => `"${prop.fieldNames[0]}"`).join(', '),
    placeholders: props.map(() => '?').join(', '),
    values: (row: T): unknown[] => props.map((prop) => columnValue(prop, (row as Record<string, unknown>)[prop.name])),
  };
}

const stored = (prop: EntityProperty) =>
  prop.persist !== false &&
  prop.fieldNames?.length === 1 &&
  (prop.kind === ReferenceKind.SCALAR ||
    prop.kind === ReferenceKind.MANY_TO_ONE ||
    (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner));

function columnValue(prop: EntityProperty, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (prop.kind !== ReferenceKind.SCALAR) return wrap(value, true).getPrimaryKey();
  return prop.customType instanceof JsonType ? jsonbParam(value) : value;
}
