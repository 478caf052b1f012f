import { createServer } from 'node:net';
import { startNeoDevnet } from './src/stack/neo-devnet.ts';
const srv = createServer().listen(31557, '127.0.0.1');
for (const [bin, port] of [['/root/.cache/neoflow/bin/neo-go', 31557], ['/nonexistent/neo-go', 31558]] as const) {
  const t = Date.now();
  try { await startNeoDevnet({ neoGoPath: bin, dataDir: '/tmp/nd-fail', rpcPort: port, storage: 'inmemory' }); console.log('unexpected success'); }
  catch (e) { console.log(Date.now() - t, 'ms:', (e as Error).message.slice(0, 1500)); }
}
srv.close();
