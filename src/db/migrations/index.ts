import type { MigrationObject } from '@mikro-orm/core';
import type { MasterKeys } from '../../crypto/envelope.ts';
import { AccountsAndKeys } from './0001-accounts-and-keys.ts';
import { Secrets } from './0002-secrets.ts';
import { RateLimits } from './0003-rate-limits.ts';
import { AccountSigners } from './0004-account-signers.ts';
import { Functions } from './0005-functions.ts';
import { Automations } from './0006-automations.ts';
import { UnloggedRateLimits } from './0007-unlogged-rate-limits.ts';
import { IdempotentRequests } from './0008-idempotent-requests.ts';
import { Notifications } from './0009-notifications.ts';
import { Reconciler } from './0010-reconciler.ts';
import { sealedCredentials } from './0011-sealed-credentials.ts';
import { ContractFees } from './0012-contract-fees.ts';
import { RunningExecutions } from './0013-running-executions.ts';
import { HotQueryIndexes } from './0014-hot-query-indexes.ts';
import { RunCalls } from './0015-run-calls.ts';
import { GasBudgets } from './0016-gas-budgets.ts';
import { FunctionStorage } from './0017-function-storage.ts';
import { FunctionVersions } from './0018-function-versions.ts';
import { FunctionFetch } from './0019-function-fetch.ts';
import { Replays } from './0020-replays.ts';
import { StateTriggers } from './0022-state-triggers.ts';
import { PriceSources } from './0023-price-sources.ts';
import { WatcherChanges } from './0024-watcher-changes.ts';
import { AutomationCounts } from './0025-automation-counts.ts';
import { StateTriggerDigests } from './0026-state-trigger-digests.ts';
import { FunctionCounts } from './0027-function-counts.ts';
import { RelayedTransactions } from './0028-relayed-transactions.ts';
import { ReplaysPerAccount } from './0029-replays-per-account.ts';
import { Networks } from './0030-networks.ts';
import { CursorNetworkNames } from './0031-cursor-network-names.ts';
import { Signers } from './0032-signers.ts';
import { ManagedKeys } from './0033-managed-keys.ts';
import { AuditEvents } from './0034-audit-events.ts';
import { RunApprovals } from './0035-run-approvals.ts';
import { AutomationHooks } from './0036-automation-hooks.ts';
import { ConsoleSessions } from './0037-console-sessions.ts';
import { ExecutionReceipts } from './0038-execution-receipts.ts';
import { HookBucketOwners } from './0039-hook-bucket-owners.ts';

/**
 * Applied in this order; a migration, once released, is never edited. A migration that seals
 * values already stored (0011) is given `masterKeys`, and fails without them only if there is any.
 */
export const migrationsWith = (masterKeys?: MasterKeys): MigrationObject[] => [
  { name: '0001-accounts-and-keys', class: AccountsAndKeys },
  { name: '0002-secrets', class: Secrets },
  { name: '0003-rate-limits', class: RateLimits },
  { name: '0004-account-signers', class: AccountSigners },
  { name: '0005-functions', class: Functions },
  { name: '0006-automations', class: Automations },
  { name: '0007-unlogged-rate-limits', class: UnloggedRateLimits },
  { name: '0008-idempotent-requests', class: IdempotentRequests },
  { name: '0009-notifications', class: Notifications },
  { name: '0010-reconciler', class: Reconciler },
  { name: '0011-sealed-credentials', class: sealedCredentials(masterKeys) },
  { name: '0012-contract-fees', class: ContractFees },
  { name: '0013-running-executions', class: RunningExecutions },
  { name: '0014-hot-query-indexes', class: HotQueryIndexes },
  { name: '0015-run-calls', class: RunCalls },
  { name: '0016-gas-budgets', class: GasBudgets },
  { name: '0017-function-storage', class: FunctionStorage },
  { name: '0018-function-versions', class: FunctionVersions },
  { name: '0019-function-fetch', class: FunctionFetch },
  { name: '0020-replays', class: Replays },
  { name: '0022-state-triggers', class: StateTriggers },
  { name: '0023-price-sources', class: PriceSources },
  { name: '0024-watcher-changes', class: WatcherChanges },
  { name: '0025-automation-counts', class: AutomationCounts },
  { name: '0026-state-trigger-digests', class: StateTriggerDigests },
  { name: '0027-function-counts', class: FunctionCounts },
  { name: '0028-relayed-transactions', class: RelayedTransactions },
  { name: '0029-replays-per-account', class: ReplaysPerAccount },
  { name: '0030-networks', class: Networks },
  { name: '0031-cursor-network-names', class: CursorNetworkNames },
  { name: '0032-signers', class: Signers },
  { name: '0033-managed-keys', class: ManagedKeys },
  { name: '0034-audit-events', class: AuditEvents },
  { name: '0035-run-approvals', class: RunApprovals },
  { name: '0036-automation-hooks', class: AutomationHooks },
  { name: '0037-console-sessions', class: ConsoleSessions },
  { name: '0038-execution-receipts', class: ExecutionReceipts },
  { name: '0039-hook-bucket-owners', class: HookBucketOwners },
];

/** The migrations, given no keys: their names and order, and every run that seals nothing. */
export const migrations = migrationsWith();
