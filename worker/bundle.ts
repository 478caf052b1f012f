import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const workflowsDir = join(root, 'workflows');

/**
 * The path of a workflow bundle matching the current sources, built once and reused by every
 * later worker start (bundling takes seconds; loading a bundle does not).
 */
export async function prebuiltWorkflowBundle(cacheDir: string): Promise<string> {
  const path = join(cacheDir, `workflow-bundle-${await sourcesHash()}.js`);
  if (existsSync(path)) return path;
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(workflowsDir, 'index.ts'),
    logger: new DefaultLogger('WARN'),
  });
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, code);
  await rename(partial, path);
  return path;
}

async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(workflowsDir, { recursive: true })).filter((file) => file.endsWith('.ts')).sort();
  for (const file of files) hash.update(file).update(await readFile(join(workflowsDir, file)));
  return hash.digest('hex').slice(0, 16);
}
