import { p } from '@mikro-orm/core';
import { type IdPrefix, newId } from '../ids.ts';

/** A resource's id: its prefix and random characters (src/ids.ts), made when the entity is. */
export const prefixedId = (prefix: IdPrefix) =>
  p
    .string()
    .primary()
    .onCreate(() => newId(prefix));

/** When a row was made; never changes. */
export const createdAt = () => p.datetime().onCreate(() => new Date());

/** The timestamps of a resource that changes: made, and last changed. */
export const timestamps = () => ({
  createdAt: createdAt(),
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
});
