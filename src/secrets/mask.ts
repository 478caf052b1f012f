/**
 * Replaces every occurrence of a secret value in `text` by `[secret:NAME]`, longest values first
 * so a value containing another is masked whole.
 */
export function maskSecrets(text: string, secrets: readonly { name: string; value: string }[]): string {
  const byLength = [...secrets]
    .filter((secret) => secret.value.length > 0)
    .sort((a, b) => b.value.length - a.value.length);
  return byLength.reduce((masked, secret) => masked.split(secret.value).join(`[secret:${secret.name}]`), text);
}
