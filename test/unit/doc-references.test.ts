import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const documents = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)].filter((path) =>
  path.endsWith('.md'),
);
const read = (path: string) => readFileSync(join(root, path), 'utf8');
/** Code spans: where a document names a file. Fenced blocks are examples, not references. */
const codeSpans = (text: string) =>
  [...text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!);
/** A placeholder (`test/unit/<file>`, `src/…`, `*.routes.ts`) stands for many files, not one. */
const placeholder = /[<>*…{}$]/;

function repositoryFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', '.git', '.neoflow'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? repositoryFiles(path) : [relative(root, path)];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchorsOf = (path: string) =>
  new Set([...read(path).matchAll(/^#+\s+(.+)$/gm)].map((match) => anchor(match[1]!.trim())));

const tops = readdirSync(root).filter((name) => !['node_modules', '.git', '.neoflow'].includes(name));

describe('every reference in the README and docs/ resolves', () => {
  it.each(documents)('%s: each relative link reaches a file, and a heading where it names one', (document) => {
    const broken = [...read(document).matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => {
        const [file, heading] = target.split('#') as [string, string | undefined];
        const path = file === '' ? document : join(dirname(document), file);
        if (!existsSync(join(root, path))) return true;
        return heading !== undefined && path.endsWith('.md') && !anchorsOf(path).has(heading);
      });
    expect(broken).toEqual([]);
  });

  it.each(documents)('%s: each path it names in code (src/…, test/…, bench/…) is in the repository', (document) => {
    const missing = codeSpans(read(document))
      .filter((span) => span.includes('/') && !placeholder.test(span))
      .filter((span) => tops.includes(span.replace(/^\.\//, '').split('/')[0]!))
      .filter((span) => !existsSync(join(root, span.replace(/(:\d+|#.*)$/, ''))));
    expect(missing).toEqual([]);
  });

  it.each(documents)('%s: each file it names by its name alone is in the repository', (document) => {
    const names = new Set(repositoryFiles().map((path) => basename(path)));
    const missing = codeSpans(read(document))
      .filter((span) => !span.includes('/') && !placeholder.test(span))
      .filter((span) => /^[\w.-]+\.(ts|js|md|json|ya?ml|sh|toml|sql)$/.test(span) && !names.has(span));
    expect(missing).toEqual([]);
  });

  it.each(documents)('%s: each folder it names (`api/`, `test/e2e`) is in the repository', (document) => {
    const missing = codeSpans(read(document))
      .filter((span) => /^[\w-]+\/$/.test(span))
      .filter((span) => !['', 'src', 'test', 'deploy'].some((base) => existsSync(join(root, base, span))));
    expect(missing).toEqual([]);
  });
});

it("docs/performance.md holds today's figures in at most 300 lines, the history left to git", () => {
  const page = read('docs/performance.md');
  expect(page.split('\n').length).toBeLessThanOrEqual(300);
  expect(page).toContain('git log -p docs/performance.md');
});
