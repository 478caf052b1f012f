import { spawn, execFile } from 'node:child_process';
import { mkdir, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface GoProgram {
  /** File name of the binary. */
  name: string;
  module: string;
  version: string;
  /** Package of the main function, relative to the module root. */
  pkg: string;
  ldflags?: string;
  /**
   * What `<name> --version` prints for the pinned version. A program without `--version` (a server
   * that only serves) has none: its build is kept under a file name that carries the version.
   */
  versionPattern?: RegExp;
}

export const temporalCli: GoProgram = {
  name: 'temporal',
  module: 'github.com/temporalio/cli',
  version: 'v1.5.1',
  pkg: './cmd/temporal',
  ldflags: '-X github.com/temporalio/cli/temporalcli.Version=1.5.1',
  versionPattern: /^temporal version 1\.5\.1 /,
};

export const neoGo: GoProgram = {
  name: 'neo-go',
  module: 'github.com/nspcc-dev/neo-go',
  version: 'v0.122.0',
  pkg: './cli',
  ldflags: '-X github.com/nspcc-dev/neo-go/pkg/config.Version=0.122.0',
  versionPattern: /Version: 0\.122\.0\b/,
};

/**
 * The production Temporal server and its schema tool, from `go.temporal.io/server` at the version
 * the pinned CLI embeds (its go.mod; the module is already downloaded when the CLI was built):
 * what a cluster runs (docs/deployment.md), and what `npm run test:cluster` starts.
 */
const temporalServerVersion = 'v1.29.1';

export const temporalServer: GoProgram = {
  name: 'temporal-server',
  module: 'go.temporal.io/server',
  version: temporalServerVersion,
  pkg: './cmd/server',
  versionPattern: /\b1\.29\.1\b/,
};

export const temporalSqlTool: GoProgram = {
  name: 'temporal-sql-tool',
  module: 'go.temporal.io/server',
  version: temporalServerVersion,
  pkg: './cmd/tools/sql',
  versionPattern: /\b1\.29\.1\b/,
};

/**
 * Docker Compose v2, standalone: renders docker-compose.yml exactly as `docker compose` does (its
 * interpolation, `${VAR:?…}` checks, merges), for the test that starts each service's command
 * with the environment the file gives it. Nothing here runs containers.
 */
export const dockerCompose: GoProgram = {
  name: 'docker-compose',
  module: 'github.com/docker/compose/v2',
  version: 'v2.40.3',
  pkg: './cmd',
  ldflags: '-X github.com/docker/compose/v2/internal.Version=v2.40.3',
  versionPattern: /v2\.40\.3/,
};

/**
 * A local AWS KMS (its API over HTTP, keys kept in a data directory), which the AWS KMS custody
 * backend's tests sign with (issue 46). It has no `--version`: started, it serves.
 */
export const localKms: GoProgram = {
  name: 'local-kms',
  module: 'github.com/nsmithuk/local-kms',
  version: 'v0.0.0-20260228092603-2a5e92d09ab6',
  pkg: '.',
  ldflags: '-X main.Version=v0.0.0-20260228092603-2a5e92d09ab6',
};

export type Progress = (line: string) => void;

/**
 * Returns the path of the pinned program: the cached build, else a matching one on PATH, else a
 * fresh build into `binDir`. It builds from the module downloaded at its exact version rather than
 * with `go install`, which also lists the module's versions and so fails on proxies that refuse
 * listings (neo-go's, here).
 */
export async function ensureGoProgram(program: GoProgram, binDir: string, progress: Progress) {
  const cached = join(binDir, program.versionPattern ? program.name : `${program.name}-${program.version}`);
  if (await hasVersion(cached, program)) return cached;
  if (await hasVersion(program.name, program)) return program.name;
  await build(program, cached, progress);
  if (!(await hasVersion(cached, program))) {
    throw new Error(`${program.name} was built but does not report version ${program.version}`);
  }
  return cached;
}

async function hasVersion(command: string, program: GoProgram): Promise<boolean> {
  if (command.includes('/') && !existsSync(command)) return false;
  // Built here under its versioned name (a build is renamed into place whole): none is looked for on PATH.
  if (!program.versionPattern) return command.includes('/');
  try {
    const { stdout } = await run(command, ['--version'], { timeout: 10_000 });
    return program.versionPattern.test(stdout);
  } catch {
    return false;
  }
}

async function build(program: GoProgram, target: string, progress: Progress) {
  const goEnv = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' };
  const started = Date.now();
  const ticker = setInterval(
    () => progress(`still building ${program.name} (${Math.round((Date.now() - started) / 1000)} s)`),
    15_000,
  );
  try {
    progress(`building ${program.name} ${program.version} with Go (first run only, a few minutes)`);
    await requireGo(program, target, goEnv);
    const moduleDir = await downloadModule(program, goEnv);
    await mkdir(join(target, '..'), { recursive: true });
    const partial = `${target}.${process.pid}.partial`;
    const args = ['build', '-trimpath', '-o', partial];
    if (program.ldflags) args.push('-ldflags', program.ldflags);
    await streamed('go', [...args, program.pkg], { cwd: moduleDir, env: goEnv }, progress);
    await rename(partial, target);
    progress(`built ${program.name} in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (error) {
    await rm(`${target}.${process.pid}.partial`, { force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`could not build ${program.name} ${program.version} with Go: ${reason}`, { cause: error });
  } finally {
    clearInterval(ticker);
  }
}

/** Go is needed once, to build; without it, say so and what else works, not `spawn go ENOENT`. */
async function requireGo(program: GoProgram, target: string, env: NodeJS.ProcessEnv) {
  try {
    await run('go', ['version'], { env, timeout: 10_000 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(
      `Go (1.26 or newer, https://go.dev/dl/) is not on PATH. It is needed once, to build ` +
        `${program.name} ${program.version} into ${target}; alternatively put that version of ` +
        `${program.name} there or on PATH.`,
      { cause: error },
    );
  }
}

async function downloadModule(program: GoProgram, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `${program.module}@${program.version}`], {
    env,
    maxBuffer: 1 << 20,
  });
  const dir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`go mod download gave no directory for ${program.module}`);
  return dir;
}

function streamed(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  progress: Progress,
): Promise<void> {
  return new Promise((resolveBuild, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        if (line.startsWith('go: downloading')) progress(line.slice(4));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolveBuild() : reject(new Error(`go ${args[0]} exited with ${code}: ${tail.join('\n')}`)),
    );
  });
}
