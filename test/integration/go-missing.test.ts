import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ensureGoProgram, neoGo } from '../../src/stack/binaries.ts';

it('says that Go is missing, and what it is for, instead of spawn go ENOENT', async () => {
  const binDir = await mkdtemp(join(tmpdir(), 'neoflow-no-go-'));
  const path = process.env.PATH;
  // Neither Go nor a neo-go binary can be found.
  process.env.PATH = binDir;
  try {
    await expect(ensureGoProgram(neoGo, binDir, () => {})).rejects.toThrow(
      /Go \(1\.26 or newer, https:\/\/go\.dev\/dl\/\) is not on PATH\. It is needed once, to build neo-go v0\.122\.0/,
    );
  } finally {
    process.env.PATH = path;
    await rm(binDir, { recursive: true, force: true });
  }
});
