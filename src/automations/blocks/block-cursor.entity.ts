import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The next block the follower of a Neo network reads; advanced with the runs it fired. */
export const BlockCursor = defineEntity({
  name: 'BlockCursor',
  tableName: 'block_cursors',
  properties: {
    /** The network's magic number. */
    network: p.string().length(32).primary(),
    /** The network's configured name, written by its follower (migration 0031). */
    name: p.string().length(32).nullable(),
    nextIndex: p.integer(),
    updatedAt: p.datetime(),
  },
});

export type BlockCursor = InferEntity<typeof BlockCursor>;
