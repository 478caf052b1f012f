import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** An .env as an operator fills it in from .env.example: every value made by its own command. */
export function filledEnv(): Record<string, string> {
  return {
    NEOFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    NEOFLOW_PAYLOAD_KEY: randomBytes(32).toString('base64'),
    NEOFLOW_OPERATOR_TOKEN: randomBytes(32).toString('hex'),
    NEOFLOW_UI_CODEC_CAPABILITY: 'capability',
    POSTGRES_PASSWORD: randomBytes(24).toString('hex'),
  };
}

export interface RenderedService {
  environment?: Record<string, string>;
  command?: string[];
  entrypoint?: string[];
}

export type RenderedCompose = { services: Record<string, RenderedService> };

/**
 * `docker compose config` of the repository's docker-compose.yml with `env` as its .env (written
 * into `scratch`), by the Docker Compose built from its module at `composePath`.
 */
export async function renderCompose(
  composePath: string,
  scratch: string,
  env: Record<string, string>,
): Promise<RenderedCompose> {
  const envFile = join(scratch, `${randomBytes(4).toString('hex')}.env`);
  await writeFile(
    envFile,
    Object.entries(env)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n'),
  );
  const { stdout } = await run(
    composePath,
    ['-f', join(root, 'docker-compose.yml'), '--env-file', envFile, 'config', '--format', 'json'],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME } },
  );
  return JSON.parse(stdout) as RenderedCompose;
}
