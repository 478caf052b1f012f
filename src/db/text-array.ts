import { ArrayType, type Platform, type TransformContext } from '@mikro-orm/core';

/**
 * A PostgreSQL `text[]` that round-trips every string. MikroORM's ArrayType writes an array
 * literal that quotes an element only when it holds `"{},\`, so `NULL` reads back as null,
 * `" padded "` loses its spaces and a tab becomes `t`. Here every element is quoted and only `"`
 * and `\` are escaped, which is all the array syntax needs inside quotes. Reads need no help:
 * the pg driver parses `text[]` itself.
 */
export class TextArrayType extends ArrayType<string> {
  override convertToDatabaseValue(value: string[] | null, platform: Platform, context?: TransformContext) {
    if (!Array.isArray(value)) return super.convertToDatabaseValue(value, platform, context);
    return `{${value.map(quoted).join(',')}}`;
  }
}

const quoted = (element: string) => `"${element.replace(/["\\]/g, '\\$&')}"`;
