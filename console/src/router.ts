import { useEffect, useState } from 'preact/hooks';

/**
 * Pages are routed in the browser by the URL's fragment (`#/automations/auto_…`): one document
 * serves them all, and a link is a plain `<a href>`, reachable and openable like any other.
 */
export type Route =
  | { page: 'automations' }
  | { page: 'automation'; id: string }
  | { page: 'run'; id: string; runId: string }
  | { page: 'functions' }
  | { page: 'function'; id: string }
  | { page: 'execution'; id: string; executionId: string }
  | { page: 'signers' }
  | { page: 'approvals' }
  | { page: 'audit' };

const idPart = '([A-Za-z0-9_-]{1,64})';
const patterns: [RegExp, (match: string[]) => Route][] = [
  [new RegExp(`^/automations/${idPart}/runs/${idPart}$`), (m) => ({ page: 'run', id: m[1]!, runId: m[2]! })],
  [new RegExp(`^/automations/${idPart}$`), (m) => ({ page: 'automation', id: m[1]! })],
  [
    new RegExp(`^/functions/${idPart}/executions/${idPart}$`),
    (m) => ({ page: 'execution', id: m[1]!, executionId: m[2]! }),
  ],
  [new RegExp(`^/functions/${idPart}$`), (m) => ({ page: 'function', id: m[1]! })],
  [/^\/functions$/, () => ({ page: 'functions' })],
  [/^\/signers$/, () => ({ page: 'signers' })],
  [/^\/approvals$/, () => ({ page: 'approvals' })],
  [/^\/audit$/, () => ({ page: 'audit' })],
];

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  for (const [pattern, make] of patterns) {
    const match = pattern.exec(path);
    if (match) return make(match);
  }
  return { page: 'automations' };
}

export const href = {
  automations: () => '#/',
  automation: (id: string) => `#/automations/${id}`,
  run: (id: string, runId: string) => `#/automations/${id}/runs/${runId}`,
  functions: () => '#/functions',
  function: (id: string) => `#/functions/${id}`,
  execution: (id: string, executionId: string) => `#/functions/${id}/executions/${executionId}`,
  signers: () => '#/signers',
  approvals: () => '#/approvals',
  audit: () => '#/audit',
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
