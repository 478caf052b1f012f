import type { EventParameter } from '../../chain/blocks.ts';
import { decodeAs, decodeItem, stateItems, type StackItem } from '../../chain/stack-item.ts';

/**
 * The event's arguments in JSON: by parameter name, read as their ABI types say, or without an
 * ABI, a list read from the stack items alone (see decodeItem).
 * Parameters the notification lacks are left out.
 */
export function decodeState(
  state: StackItem,
  parameters: EventParameter[] | null,
): Record<string, unknown> | unknown[] {
  const items = stateItems(state);
  if (!parameters) return items.map(decodeItem);
  const pairs = parameters.flatMap(({ name, type }, index) => {
    const item = items[index];
    return item ? [[name, decodeAs(item, type)] as const] : [];
  });
  return Object.fromEntries(pairs);
}
