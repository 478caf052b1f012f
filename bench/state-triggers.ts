/**
 * `npm run bench:state`: the block follower's lag with 300 accounts' worth of large state triggers
 * (issue 44). On scratch services it writes BENCH_STATE_ACCOUNTS accounts of
 * BENCH_STATE_PER_ACCOUNT active state triggers each (the cap), every one with its own arguments at
 * the bound (16 Strings, ~4 KiB as JSON) and half of them making a read the node answers (the
 * other half, GAS `balanceOf` given 16 arguments, fault: quarantined once, then marked failing).
 * Then, in this process, it follows the chain's blocks as the worker does (`followRound` in a
 * loop, the runs it records not started), alternating windows with the triggers inactive (the
 * floor: the round alone) and active. After each round it takes the lag in blocks (the chain's
 * height past the cursor); it counts the reads made, and at a window's end how many blocks the
 * least recently evaluated trigger has waited. A benchmark, not a test: it exits 0 whatever its
 * figures.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { followRound } from '../src/automations/blocks/follow-blocks.ts';
import { BlockPace, followPollMs } from '../src/automations/blocks/block-pace.ts';
import { StateFollow } from '../src/automations/blocks/state-trigger-follow.ts';
import { UndeployedContracts } from '../src/automations/blocks/undeployed-contracts.ts';
import { WatcherIndex } from '../src/automations/blocks/watcher-index.ts';
import { stateTriggersPerAccount } from '../src/automations/model/state-trigger-cap.ts';
import { createEventAbiCache } from '../src/chain/blocks.ts';
import { argsBytes } from '../src/chain/contract-args.ts';
import { executeBound } from '../src/db/bound-statement.ts';
import { createNeoRpc, type NeoRpc } from '../src/chain/rpc.ts';
import { countFrom, printReport, progress, runBench, summarise } from './measure.ts';
import { startScratchStack } from './scratch-stack.ts';

const counts = {
  accounts: countFrom('BENCH_STATE_ACCOUNTS', 300),
  perAccount: countFrom('BENCH_STATE_PER_ACCOUNT', stateTriggersPerAccount),
  windowSeconds: countFrom('BENCH_STATE_WINDOW_SECONDS', 30),
  /** Pairs of windows (inactive, active), alternated. */
  rounds: countFrom('BENCH_STATE_ROUNDS', 2),
  settleSeconds: countFrom('BENCH_STATE_SETTLE_SECONDS', 5),
};

const gasHash = '0xd2a4cff31913016155e38e474a2c06d08be276cf';
/** The one network's name, as NEO_RPC_URL gives it: the automations' and the follower's. */
const benchNetwork = 'default';

/** 16 Strings, ~4 KiB as JSON, unlike any other trigger's: every trigger is a read of its own. */
const heavyArgs = () =>
  Array.from({ length: 16 }, () => ({ type: 'String', value: randomBytes(168).toString('base64') }));

interface Window {
  active: boolean;
  lags: number[];
  /**
   * The lags after the window's first `settleSeconds`: switching 6,000 triggers on rewrites their
   * rows, so each active window begins with every trigger read and parsed again, as a worker's
   * start does once.
   */
  settledLags: number[];
  roundMs: number[];
  blocks: number;
  reads: number;
  /** Blocks since the least recently evaluated active trigger was read, at the window's end. */
  stalest: number;
}

async function writeTriggers(orm: MikroORM, head: number) {
  const connection = orm.em.fork().getConnection();
  const now = new Date().toISOString();
  for (let account = 0; account < counts.accounts; account++) {
    const accountId = `acct_bench_${account}`;
    await connection.execute(`insert into "accounts" ("id", "name", "created_at", "updated_at") values (?, ?, ?, ?)`, [
      accountId,
      accountId,
      now,
      now,
    ]);
    const rows = Array.from({ length: counts.perAccount }, (_, index) => {
      const answered = index % 2 === 0;
      const trigger = {
        type: 'state',
        scriptHash: gasHash,
        operation: answered ? 'symbol' : 'balanceOf',
        args: heavyArgs(),
        condition: 'changed',
      };
      return [`auto_bench_${account}_${index}`, accountId, JSON.stringify(trigger)];
    });
    await executeBound(
      orm.em.fork(),
      `insert into "automations" ("id", "account_id", "name", "network", "status", "trigger_type", "trigger", "action",
          "watch_from_block", "notify", "gas_below", "created_at", "updated_at")
        select r."id", r."account", r."id", '${benchNetwork}', 'inactive', 'state', r."trigger"::jsonb,
            '{"type":"webhook","url":"https://example.com/hook"}'::jsonb, ?, '[]'::jsonb, '[]'::jsonb, now(), now()
          from unnest(?::text[], ?::text[], ?::text[]) as r("id", "account", "trigger")`,
      [head, rows.map((row) => row[0]), rows.map((row) => row[1]), rows.map((row) => row[2])],
    );
  }
}

async function followFor(orm: MikroORM, neo: NeoRpc, network: string, active: boolean): Promise<Window> {
  const connection = orm.em.fork().getConnection();
  await connection.execute(`update "automations" set "status" = ? where "trigger_type" = 'state'`, [
    active ? 'active' : 'inactive',
  ]);
  let reads = 0;
  const counted: NeoRpc = {
    ...neo,
    invokeFunction: (...args) => {
      reads++;
      return neo.invokeFunction(...args);
    },
  };
  const deps = {
    name: benchNetwork,
    neo: counted,
    abi: createEventAbiCache(neo),
    followed: { next: null as number | null },
    contracts: new UndeployedContracts(neo, 3, 60_000),
    watchers: new WatcherIndex(benchNetwork),
    state: new StateFollow(benchNetwork, counted),
    pace: new BlockPace(followPollMs),
    beat: () => {},
    // The deployment's default (NEOFLOW_ACCOUNT_RUNS_PER_READ).
    runsPerAccount: 100,
  };
  const cursorOf = async () =>
    (await connection.execute<{ next_index: number }[]>(`select "next_index" from "block_cursors"`))[0]?.next_index;
  const window: Window = { active, lags: [], settledLags: [], roundMs: [], blocks: 0, reads: 0, stalest: 0 };
  const settled = performance.now() + counts.settleSeconds * 1000;
  const firstCursor = await cursorOf();
  const end = performance.now() + counts.windowSeconds * 1000;
  while (performance.now() < end) {
    const began = performance.now();
    await followRound({ ...deps, em: orm.em.fork() }, network);
    window.roundMs.push(performance.now() - began);
    const [height, next] = await Promise.all([neo.getBlockCount(), cursorOf()]);
    window.lags.push(Math.max(0, height - next!));
    if (performance.now() > settled) window.settledLags.push(Math.max(0, height - next!));
  }
  // The evaluations still reading are left to end before the next window.
  await sleep(3_000);
  window.blocks = (await cursorOf())! - (firstCursor ?? (await cursorOf())!);
  window.reads = reads;
  const [stalest] = await connection.execute<{ blocks: number | null }[]>(
    `select max(c."next_index" - 1 - coalesce(m."evaluated_block", a."watch_from_block")) as "blocks"
      from "automations" a left join "state_trigger_marks" m on m."automation_id" = a."id", "block_cursors" c
      where a."status" = 'active' and a."trigger_type" = 'state'`,
  );
  window.stalest = stalest?.blocks ?? 0;
  return window;
}

const describeWindow = (window: Window) => {
  const lag = summarise(window.lags);
  const round = summarise(window.roundMs);
  return (
    `  triggers ${window.active ? 'active  ' : 'inactive'}: ${window.blocks} blocks, lag after a round ` +
    `p50 ${lag.p50} max ${lag.max} blocks (after ${counts.settleSeconds} s: max ${summarise(window.settledLags).max}); round p50 ${round.p50.toFixed(0)} ms p99 ${round.p99.toFixed(0)} ms; ` +
    `${(window.reads / Math.max(1, window.blocks)).toFixed(0)} reads a block` +
    (window.active ? `, stalest trigger ${window.stalest} blocks` : '')
  );
};

await runBench('state', {
  counts,
  notes: [`each trigger's args: ${argsBytes(heavyArgs())} bytes as JSON`],
  start: (report) =>
    startScratchStack('neoflow-bench-state-', report, async (base) => {
      const neo = createNeoRpc(base.services.neoRpcUrl);
      const began = performance.now();
      await writeTriggers(base.orm, (await neo.getBlockCount()) - 1);
      report(
        `${counts.accounts * counts.perAccount} state triggers written (${(performance.now() - began).toFixed(0)} ms)`,
      );
      return { ...base, neo };
    }),
  measure: async (stack) => {
    const network = String(await stack.neo.getNetworkMagic());
    const windows: Window[] = [];
    for (let round = 0; round < counts.rounds; round++) {
      for (const active of [false, true]) {
        const window = await followFor(stack.orm, stack.neo, network, active);
        progress(describeWindow(window));
        windows.push(window);
      }
    }
    const maxLag = (active: boolean, settled = false) =>
      Math.max(
        ...windows
          .filter((window) => window.active === active)
          .flatMap((window) => (settled ? window.settledLags : window.lags)),
      );
    printReport('state', [
      ...windows.map(describeWindow),
      `  max lag after a round: ${maxLag(true)} blocks with the triggers active, ${maxLag(false)} without; ` +
        `after each window's first ${counts.settleSeconds} s: ${maxLag(true, true)} active, ${maxLag(false, true)} without`,
    ]);
  },
});
