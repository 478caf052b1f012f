import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * What `neoflow apply` may read for a neoflow.yaml: a file names values the applier holds, and a
 * file from elsewhere (a pull request, a colleague) must not be able to send the applier's other
 * files or environment to a URL of its own. Files: only below the YAML file's folder, symbolic
 * links resolved. Environment variables: only those named for apply (the names `neoflow export`
 * writes), unless the applier allows any (`--allow-any-env`).
 */
export interface ApplyReach {
  /** The YAML file's folder. */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** `--allow-any-env`: any variable may be read. */
  anyEnv: boolean;
}

/** The prefixes of the variables apply reads without `--allow-any-env` (docs/automations-as-code.md). */
const applyEnvPrefixes = ['NEOFLOW_SECRET_', 'NEOFLOW_CREDENTIAL_', 'NEOFLOW_SIGNER_'] as const;

/** The value of the environment variable `name`; throws for one apply may not read. */
export function readableEnv(reach: ApplyReach, name: string): string | undefined {
  if (!reach.anyEnv && !applyEnvPrefixes.some((prefix) => name.startsWith(prefix))) {
    throw new Error(
      `$${name} is not read: apply reads only variables named ${applyEnvPrefixes.join('… or ')}… ` +
        '(pass --allow-any-env to read any)',
    );
  }
  return reach.env[name];
}

/**
 * The real path of `file` (relative to the YAML file's folder, or absolute); throws when it is not
 * below that folder once every symbolic link is resolved, or cannot be read.
 */
export async function fileBelow(reach: ApplyReach, file: string): Promise<string> {
  const [root, path] = await Promise.all([
    realpath(reach.dir),
    realpath(isAbsolute(file) ? file : resolve(reach.dir, file)).catch(() => undefined),
  ]);
  if (path === undefined) throw new Error(`cannot read ${file}`);
  const inside = relative(root, path);
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new Error(`${file} is not read: apply reads only files below the folder of the YAML file`);
  }
  return path;
}
