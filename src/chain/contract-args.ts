import { sc, wallet } from '@cityofzion/neon-js';
import { z } from 'zod';
import { addressScriptHash } from './address.ts';

/** One argument of a contract action, as the API takes it. */
export interface ContractArg {
  type: string;
  value: unknown;
}

/** What is wrong with an argument: `path` is dotted inside it (`value.2.value`; '' for the argument itself). */
interface ContractArgProblem {
  path: string;
  message: string;
}

/** A neon-js contract parameter (neon-js exports the class inside a namespace, not its type). */
type ContractParam = InstanceType<typeof sc.ContractParam>;

const maxArgs = 16;
/**
 * The most a call's arguments may weigh, as the JSON text of its `args` in UTF-8: one bound for a
 * contract action, a call a function decides and a state trigger's read, so that what a tenant
 * chooses is stored, sent to the node and read again each block at a size the service chose.
 */
export const maxArgsBytes = 4096;

/** What `args` weighs against `maxArgsBytes`. */
export const argsBytes = (args: unknown) => Buffer.byteLength(JSON.stringify(args) ?? '', 'utf8');

/** Why `args` is too heavy, or null. */
export function argsSizeProblem(args: unknown): string | null {
  const bytes = argsBytes(args);
  return bytes > maxArgsBytes ? `must be at most ${maxArgsBytes} bytes as JSON; they are ${bytes}` : null;
}
const maxArrayDepth = 8;
// NeoVM integers are at most 32 bytes, two's complement.
const integerLimit = 2n ** 255n;
/** 2^255 has 77 decimal digits: longer text is refused before BigInt parses it (quadratic in length). */
export const vmIntegerPattern = /^-?\d{1,78}$/;

/** A contract or account script hash as Neo tools show it: `0x` and 40 hex digits. */
export const hash160Pattern = /^0x[0-9a-fA-F]{40}$/;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type Check = (value: unknown, depth: number, deferred: DeferredValue | undefined) => ContractArgProblem | null;

/**
 * Recognises a value checked apart from its type, such as a template resolved at fire time and
 * checked then: `undefined` when `value` is none (it is checked by its type), else null when it is
 * valid or what is wrong with it.
 */
export type DeferredValue = (value: unknown, type: string) => string | null | undefined;

const problem = (message: string, path = 'value'): ContractArgProblem => ({ path, message });
const unless = (valid: boolean, message: string) => (valid ? null : problem(message));

const checks: Record<string, Check> = {
  Hash160: (value) =>
    unless(
      typeof value === 'string' && normalizeHash160(value) !== null,
      'must be a 0x script hash of 40 hex digits or a Neo N3 address',
    ),
  Integer: (value) =>
    unless(typeof value === 'string' && isVmInteger(value), 'must be a whole number as a string that fits in 256 bits'),
  String: (value) => unless(typeof value === 'string', 'must be a string'),
  Boolean: (value) =>
    unless(value === true || value === false || value === 'true' || value === 'false', 'must be true or false'),
  ByteArray: (value) => unless(typeof value === 'string' && base64Pattern.test(value), 'must be base64'),
  Hash256: (value) =>
    unless(typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value), 'must be 0x and 64 hex digits'),
  PublicKey: (value) =>
    unless(
      typeof value === 'string' && /^0[23][0-9a-fA-F]{64}$/.test(value) && wallet.isPublicKey(value, true),
      'must be a compressed public key: 66 hex digits starting 02 or 03',
    ),
  Array: arrayProblem,
  Any: (value) => unless(value === null || value === '', 'must be null or an empty string'),
};

const typeNames = Object.keys(checks).join(', ');

/**
 * Null when `arg` is a valid argument; else where and what is wrong. `deferred` recognises values
 * (at any depth) checked apart from their type.
 */
export function contractArgProblem(arg: unknown, deferred?: DeferredValue): ContractArgProblem | null {
  return argProblem(arg, 1, deferred);
}

function argProblem(arg: unknown, depth: number, deferred: DeferredValue | undefined): ContractArgProblem | null {
  if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) {
    return problem('must be an object with a type and a value', '');
  }
  const unknown = Object.keys(arg).find((key) => key !== 'type' && key !== 'value');
  if (unknown !== undefined) return problem('is not a field of a contract argument', unknown);
  const { type, value } = arg as Record<string, unknown>;
  const check = typeof type === 'string' && Object.hasOwn(checks, type) ? checks[type]! : null;
  if (!check) return problem(`must be one of ${typeNames}`, 'type');
  const deferredProblem = deferred?.(value, type as string);
  if (deferredProblem !== undefined) return deferredProblem === null ? null : problem(deferredProblem);
  return check(value, depth, deferred);
}

function arrayProblem(value: unknown, depth: number, deferred: DeferredValue | undefined): ContractArgProblem | null {
  if (!Array.isArray(value)) return problem('must be an array of arguments');
  if (depth > maxArrayDepth) return problem(`nests arrays more than ${maxArrayDepth} deep`);
  for (const [index, item] of value.entries()) {
    const inner = argProblem(item, depth + 1, deferred);
    if (inner) return problem(inner.message, ['value', index, inner.path].filter((part) => part !== '').join('.'));
  }
  return null;
}

function isVmInteger(value: string): boolean {
  if (!vmIntegerPattern.test(value)) return false;
  const n = BigInt(value);
  return n >= -integerLimit && n < integerLimit;
}

type JsonSchema = Record<string, unknown>;

/** Each type's value as JSON Schema, for the OpenAPI document: the checks above are what validate. */
const valueForms: Record<keyof typeof checks, JsonSchema> = {
  Hash160: { type: 'string', description: 'A 0x script hash of 40 hex digits, or a Neo N3 address.' },
  Integer: { type: 'string', pattern: vmIntegerPattern.source, description: 'A whole number that fits in 256 bits.' },
  String: { type: 'string' },
  Boolean: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }] },
  ByteArray: { type: 'string', contentEncoding: 'base64' },
  Hash256: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
  PublicKey: { type: 'string', pattern: '^0[23][0-9a-fA-F]{64}$', description: 'A compressed public key.' },
  Array: { type: 'array', description: `Arguments, nested at most ${maxArrayDepth} deep.` },
  Any: { anyOf: [{ type: 'null' }, { type: 'string', const: '' }] },
};

/** How the document names an argument, and what else its value may be (a template, say). */
interface ArgumentShown {
  id: string;
  otherValue?: JsonSchema;
}

/** One argument as JSON Schema: a `{type, value}` object for each type; an Array's items are arguments again. */
function argumentForm({ id, otherValue }: ArgumentShown): JsonSchema {
  const variants = Object.entries(valueForms).map(([type, form]) => {
    const value =
      type === 'Array'
        ? { ...form, items: { $ref: `#/$defs/${id}` } }
        : otherValue
          ? { anyOf: [form, otherValue] }
          : form;
    return {
      type: 'object',
      properties: { type: { type: 'string', const: type }, value },
      required: ['type', 'value'],
      additionalProperties: false,
    };
  });
  return { oneOf: variants };
}

/**
 * The `args` of a contract action: each issue's path points inside the argument at fault. Values
 * that `deferred` recognises are checked apart from their type; `shown` names the argument in the
 * OpenAPI document.
 */
export function contractArgsSchema(deferred?: DeferredValue, shown: ArgumentShown = { id: 'ContractArg' }) {
  const argument = z.custom<ContractArg>().meta({ id: shown.id, ...argumentForm(shown) });
  return (
    z
      // Accepts anything: the refinement below checks each argument, to report paths inside it.
      .array(argument, { error: 'must be an array of {type, value} arguments' })
      .max(maxArgs, `must hold at most ${maxArgs} arguments`)
      // An argument at fault is named first, inside it; only well-formed arguments are weighed.
      .superRefine((args, ctx) => {
        let faulty = false;
        for (const [index, arg] of args.entries()) {
          const found = contractArgProblem(arg, deferred);
          if (!found) continue;
          faulty = true;
          const inner =
            found.path === '' ? [] : found.path.split('.').map((key) => (/^\d+$/.test(key) ? Number(key) : key));
          ctx.addIssue({ code: 'custom', message: found.message, path: [index, ...inner] });
        }
        const tooHeavy = faulty ? null : argsSizeProblem(args);
        if (tooHeavy) ctx.addIssue({ code: 'custom', message: tooHeavy, path: [] });
      })
  );
}

/** The neon-js parameter for a valid argument; throws on an invalid one. */
export function toContractParam(arg: ContractArg): ContractParam {
  const found = contractArgProblem(arg);
  if (found) throw new Error(`contract argument${found.path ? ` ${found.path}` : ''} ${found.message}`);
  return param(arg);
}

function param({ type, value }: ContractArg): ContractParam {
  switch (type) {
    case 'Hash160':
      // neon-js wants the big-endian hash without 0x and reverses it into the script itself.
      return sc.ContractParam.hash160(normalizeHash160(value as string)!.slice(2));
    case 'Integer':
      return sc.ContractParam.integer(value as string);
    case 'String':
      return sc.ContractParam.string(value as string);
    case 'Boolean':
      return sc.ContractParam.boolean(value === true || value === 'true');
    case 'ByteArray':
      // neon-js takes base64 as little-endian and emits it reversed back: the bytes go in as decoded.
      return sc.ContractParam.byteArray(value as string);
    case 'Hash256':
      return sc.ContractParam.hash256(value as string);
    case 'PublicKey':
      return sc.ContractParam.publicKey(value as string);
    case 'Array':
      return sc.ContractParam.array(...(value as ContractArg[]).map(param));
    default:
      return sc.ContractParam.any(null);
  }
}

/** Longer than any address (34 characters): base58 decoding is quadratic, so nothing longer is decoded. */
export const maxAddressChars = 64;

/** An address or 0x script hash as lower-case 0x big-endian hex, the form explorers show; null if neither. */
export function normalizeHash160(value: string): string | null {
  if (hash160Pattern.test(value)) return value.toLowerCase();
  const scriptHash = value.length > maxAddressChars ? null : addressScriptHash(value);
  return scriptHash === null ? null : `0x${scriptHash}`;
}
