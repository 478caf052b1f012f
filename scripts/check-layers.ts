/**
 * Fails when an import runs back up the layers of docs/architecture.md ("The layers"), beyond the
 * few named there, or when a module of src/ imports workflows/. Each production module belongs to
 * the first layer whose pattern matches its path; a module may import its own layer or any below
 * it. Type-only imports count: a type ties two modules as surely as a value.
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { importsOf } from './check-import-cycles.ts';

const root = resolve(import.meta.dirname, '..');

/**
 * Top to bottom, as docs/architecture.md draws them: the API side above the workflows it starts
 * (by name), the workflows above the activities they call, and below those the worker side of
 * src/, area by area, down to the foundations every layer uses.
 */
export const layers: { name: string; paths: RegExp[] }[] = [
  { name: 'cli', paths: [/^src\/cli\//] },
  { name: 'stack', paths: [/^src\/stack\//] },
  { name: 'composition', paths: [/^src\/app\//, /^worker\//] },
  { name: 'routes', paths: [/\.routes\.ts$/] },
  { name: 'services', paths: [/\.service\.ts$/] },
  // What writes Temporal's state from rows (`*.control.ts`) and the reconciler.
  { name: 'control', paths: [/^src\/recovery\//, /\.control\.ts$/] },
  { name: 'views', paths: [/\.view\.ts$/] },
  { name: 'http', paths: [/^src\/api\//] },
  { name: 'workflows', paths: [/^workflows\//] },
  { name: 'activities', paths: [/^activities\//] },
  // What a process opens, and the ORM's root it opens with every entity and migration: below what
  // is built over them (the API's areas take them), above the areas whose entities it lists.
  { name: 'resources', paths: [/^src\/(resources|open-resources|orm)\.ts$/, /^src\/db\/migrations\//] },
  // Automations' capabilities over their ground: notifications and credentials below the rest, and
  // model/ (entities, schemas, the automation's statements) below every capability.
  { name: 'automations', paths: [/^src\/automations\/(?!notifications\/|credentials\/|model\/)/] },
  { name: 'automations notifications', paths: [/^src\/automations\/notifications\//] },
  { name: 'automations credentials', paths: [/^src\/automations\/credentials\//] },
  { name: 'automations model', paths: [/^src\/automations\/model\//] },
  { name: 'functions', paths: [/^src\/functions\//] },
  { name: 'sandbox', paths: [/^src\/sandbox\//] },
  { name: 'codec', paths: [/^src\/codec\//] },
  { name: 'secrets', paths: [/^src\/secrets\//] },
  // Execution receipts (issue 51): their layout, keys and checks, over the signers' key shapes.
  { name: 'receipts', paths: [/^src\/receipts\//] },
  // An account's signers (issue 46): rows over accounts, the keys they open, and their custody backends.
  { name: 'signers', paths: [/^src\/signers\/(?!signing-key\.ts$|signature-check\.ts$)/] },
  { name: 'account', paths: [/^src\/auth\//, /^src\/account\//, /^src\/keys\//] },
  { name: 'chain', paths: [/^src\/chain\//] },
  // The signing port: what signs a transaction, and the check of what it signed, below the chain that signs through it.
  { name: 'signing port', paths: [/^src\/signers\/(signing-key|signature-check)\.ts$/] },
  { name: 'foundation', paths: [/^src\//] },
];

export function layerOf(path: string): number {
  const index = layers.findIndex(({ paths }) => paths.some((pattern) => pattern.test(path)));
  if (index < 0) throw new Error(`${path} belongs to no layer`);
  return index;
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file));
}

/** Each import of the production code, from one module to another: [importer, imported], by path from the root. */
function productionImports(): [string, string][] {
  return ['src', 'workflows', 'activities', 'worker']
    .flatMap(sources)
    .flatMap((file) => importsOf(join(root, file)).map((path): [string, string] => [file, relative(root, path)]))
    .filter(([, target]) => target.endsWith('.ts'));
}

/**
 * The imports allowed to run up, each for a reason no move removes. The reconciler's pass is a
 * workflow whose activities write Temporal's state as the API side does (they start schedules and
 * pollers): the workflow names their type.
 */
export const allowedUpward = new Set(['workflows/recovery-sweep.ts → src/recovery/reconciler-activities.ts']);

export const upwardImports = () =>
  productionImports()
    .filter(([file, target]) => layerOf(target) < layerOf(file))
    .map(([file, target]) => `${file} → ${target}`);

/**
 * Imports of workflows/ by src/, refused wherever the layers rank the two: a workflow imports its
 * activities' types, which import src/, so such an import runs back up the graph. A starter names
 * the workflow's signature instead (src/shared/workflow-signatures.ts).
 */
export const workflowImports = () =>
  productionImports()
    .filter(([file, target]) => file.startsWith('src/') && target.startsWith('workflows/'))
    .map(([file, target]) => `${file} → ${target}`);

if (import.meta.main) {
  const upward = upwardImports();
  const refused = upward.filter((line) => !allowedUpward.has(line));
  for (const line of refused) console.error(`import runs up the layers (docs/architecture.md): ${line}`);
  const ofWorkflows = workflowImports();
  for (const line of ofWorkflows)
    console.error(`src/ imports a workflow (name its signature in src/shared/workflow-signatures.ts): ${line}`);
  console.log(
    `layers: ${upward.length} import(s) up, all named; ${ofWorkflows.length} import(s) of workflows/ by src/`,
  );
  if (refused.length > 0 || ofWorkflows.length > 0 || allowedUpward.size > 5) process.exit(1);
}
