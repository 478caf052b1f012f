import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { failureConverterPath } from '../src/temporal/codec.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const workflowsDir = join(root, 'workflows');
/** What workflows import of src/ (docs/architecture.md, rule 1): its values are bundled too. */
const sharedDir = join(root, 'src', 'shared');
/** The SDK packages whose code the bundle contains besides ours. */
const sdkPackages = ['@temporalio/workflow', '@temporalio/common'];

/**
 * The path of a workflow bundle matching the current sources, built once and reused by every
 * later worker start (bundling takes seconds; loading a bundle does not).
 */
export async function prebuiltWorkflowBundle(cacheDir: string): Promise<string> {
  const path = join(cacheDir, `workflow-bundle-${await sourcesHash()}.js`);
  if (existsSync(path)) return path;
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(workflowsDir, 'index.ts'),
    // The workflow sandbox converts its own failures: it must encode them as clients and workers do.
    failureConverterPath,
    logger: new DefaultLogger('WARN'),
  });
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, code);
  await rename(partial, path);
  return path;
}

/** Everything the bundle is built from: workflow sources, src/shared/, the failure converter, SDK versions. */
async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  const sources = [...(await tsFiles(workflowsDir)), ...(await tsFiles(sharedDir)), failureConverterPath];
  for (const file of sources) hash.update(relative(root, file)).update(await readFile(file));
  const require = createRequire(import.meta.url);
  for (const name of sdkPackages)
    hash.update(`${name}@${(require(`${name}/package.json`) as { version: string }).version}`);
  return hash.digest('hex').slice(0, 16);
}

const tsFiles = async (dir: string) =>
  (await readdir(dir, { recursive: true }))
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((name) => join(dir, name));
