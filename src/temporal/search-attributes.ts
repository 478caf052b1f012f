import proto from '@temporalio/proto';
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { attributeKeys } from '../shared/workflow-attributes.ts';

/** Custom search attributes every Neoflow workflow carries, for filtering in the Web UI. */
export const searchAttributeNames = Object.values(attributeKeys).map((key) => key.name);

/** `--search-attribute` flags for `temporal server start-dev`. */
export function devServerSearchAttributeArgs(): string[] {
  return searchAttributeNames.flatMap((name) => ['--search-attribute', `${name}=Keyword`]);
}

/** Registers the attributes a server lacks (an external cluster's first use). */
export async function ensureSearchAttributes(connection: Connection | NativeConnection, namespace: string) {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = searchAttributeNames.filter((name) => !(name in existing.customAttributes));
  if (missing.length === 0) return;
  const keyword = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])),
  });
}
