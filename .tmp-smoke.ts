import { startNeoDevnet } from './src/stack/neo-devnet.ts';
import { rpc } from '@cityofzion/neon-js';
const t = Date.now();
const net = await startNeoDevnet({ neoGoPath: '/root/.cache/neoflow/bin/neo-go', dataDir: '/tmp/nd-smoke', rpcPort: 31556, blockTimeMs: 300 });
console.log('ready in', Date.now() - t, net.wallet);
const c = new rpc.RPCClient(net.rpcUrl);
console.log(await c.getBlockCount(), JSON.stringify(await c.getNep17Balances(net.wallet.address)));
await net.stop();
console.log('stopped', Date.now() - t);
