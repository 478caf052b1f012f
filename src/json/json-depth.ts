const quote = 0x22;
const backslash = 0x5c;
const opening = new Set([0x5b, 0x7b]); // [ {
const closing = new Set([0x5d, 0x7d]); // ] }

/**
 * How deeply JSON text nests arrays and objects, brackets inside strings not counted. One pass,
 * no recursion: it runs before the parser, whose reviver recurses once per level.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === backslash) index++;
      else if (code === quote) inString = false;
    } else if (code === quote) inString = true;
    else if (opening.has(code)) deepest = Math.max(deepest, ++depth);
    else if (closing.has(code)) depth--;
  }
  return deepest;
}
