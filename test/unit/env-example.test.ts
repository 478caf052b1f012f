import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { codecCapability } from '../../src/codec/codec.auth.ts';

const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');

/** The shell command documented above `name` in .env.example (its `#   ` lines, joined). */
function commandFor(name: string): string {
  const lines = example.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`${name}=`));
  const command: string[] = [];
  for (let index = at - 1; lines[index]!.startsWith('#   '); index--) command.unshift(lines[index]!.slice(4));
  return command.join('\n');
}

it('.env.example documents a command for every production secret, and the codec capability it derives is the service’s', () => {
  for (const name of ['NEOFLOW_MASTER_KEY', 'NEOFLOW_PAYLOAD_KEY', 'NEOFLOW_OPERATOR_TOKEN', 'POSTGRES_PASSWORD'])
    expect(commandFor(name)).toMatch(/^openssl rand /);
  const token = 'a-token-of-at-least-24-characters';
  const capability = execFileSync('sh', ['-c', commandFor('NEOFLOW_UI_CODEC_CAPABILITY')], {
    env: { ...process.env, NEOFLOW_OPERATOR_TOKEN: token },
    encoding: 'utf8',
  }).trim();
  expect(capability).toBe(codecCapability(token));
});
