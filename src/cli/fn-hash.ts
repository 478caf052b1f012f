import { sha256 } from '../receipts/receipt-claims.ts';
import { readFunctionFile } from './function-file.ts';

/** `neoflow fn hash <file>`: the codeHash a receipt of this code carries, as deployed from the file. */
export async function fnHashCommand(file: string | undefined) {
  if (!file) throw new Error('usage: neoflow fn hash <file.js|ts>');
  const { code } = await readFunctionFile(file);
  process.stdout.write(`${sha256(code).toString('hex')}\n`);
}
