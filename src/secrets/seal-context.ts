/** What authenticates a sealed value: it cannot be replayed into another secret or version. */
export const sealContext = (secretId: string, version: number) => `${secretId}:${version}`;

/** What authenticates an automation's credential: it cannot be moved to another automation or place. */
export const credentialSealContext = (automationId: string, path: string) => `automation:${automationId}:${path}`;
