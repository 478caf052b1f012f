/** What authenticates a sealed value: it cannot be replayed into another secret or version. */
export const sealContext = (secretId: string, version: number) => `${secretId}:${version}`;
