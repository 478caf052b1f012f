import { Account } from '../auth/account.entity.ts';
import { ApiKey } from '../auth/api-key.entity.ts';
import { Automation } from '../automations/automation.entity.ts';
import { AutomationCredential } from '../automations/credential.entity.ts';
import { BlockCursor } from '../automations/block-cursor.entity.ts';
import { AutomationRun } from '../automations/run.entity.ts';
import { AccountSigner } from '../auth/signer.entity.ts';
import { Execution, ExecutionResult } from '../functions/execution.entity.ts';
import { FunctionDef } from '../functions/function.entity.ts';
import { FunctionVersion } from '../functions/function-version.entity.ts';
import { Notification } from '../automations/notifications/notification.entity.ts';
import { Secret, SecretVersion } from '../secrets/secret.entity.ts';

/** Every entity the ORM knows; each area adds its own here. */
export const entities = [
  Account,
  ApiKey,
  AccountSigner,
  Secret,
  SecretVersion,
  FunctionDef,
  FunctionVersion,
  Execution,
  ExecutionResult,
  Automation,
  AutomationCredential,
  AutomationRun,
  BlockCursor,
  Notification,
];
