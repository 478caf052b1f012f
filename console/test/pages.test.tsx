import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/app.tsx';
import { parseRoute } from '../src/router.ts';
import { may } from '../src/session.ts';

/** Answers the console's requests from a table of paths; records what was sent. */
function fakeApi(answers: Record<string, { status?: number; body: unknown }>) {
  const sent: { method: string; url: string; headers: Record<string, string> }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      sent.push({ method, url, headers: (init.headers ?? {}) as Record<string, string> });
      const answer = answers[`${method} ${url}`] ?? {
        status: 404,
        body: { error: { code: 'NOT_FOUND', message: 'no' } },
      };
      return Promise.resolve(
        new Response(JSON.stringify(answer.body), {
          status: answer.status ?? 200,
          headers: { 'Content-Type': 'application/json' },
        }),
      );
    }),
  );
  return sent;
}

const session = (scopes: string[], role: string) => ({
  accountId: 'acct_a',
  keyId: 'key_a',
  keyName: 'ci',
  role,
  scopes,
  expiresAt: '2026-12-07T16:00:00.000Z',
  idleTimeoutSeconds: 1800,
  explorerUrl: 'https://explorer.example/tx/',
});

const failedRun = {
  id: 'run_1',
  network: 'dev',
  status: 'failure',
  startedAt: '2026-12-07T04:00:00.000Z',
  completedAt: '2026-12-07T04:00:01.000Z',
  duration: 1000,
  trigger: { type: 'manual' },
  executionId: 'exec_1',
  error: { name: 'TypeError', message: 'boom' },
  notifications: [],
};

beforeEach(() => {
  location.hash = '';
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the console page', () => {
  it('routes fragments to pages, anything else to the automations', () => {
    expect(parseRoute('#/automations/auto_x/runs/run_y')).toEqual({ page: 'run', id: 'auto_x', runId: 'run_y' });
    expect(parseRoute('#/functions/func_x')).toEqual({ page: 'function', id: 'func_x' });
    expect(parseRoute('#/nothing/../x')).toEqual({ page: 'automations' });
  });

  it('grants operate to a key that may write automations, as the API does', () => {
    expect(may({ scopes: ['automations:write'] }, 'automations:operate')).toBe(true);
    expect(may({ scopes: ['automations:read'] }, 'automations:operate')).toBe(false);
    expect(may({ scopes: ['*'] }, 'audit:read')).toBe(true);
  });

  it('logs in with the key in a header only, keeps it nowhere, and shows the empty state with the command to run', async () => {
    const sent = fakeApi({
      'GET /v1/console/session': {
        status: 401,
        body: { success: false, error: { code: 'unauthorized', message: 'no' } },
      },
      'POST /v1/console/session': { status: 201, body: session(['*'], 'owner') },
      'GET /v1/automations?limit=20': {
        body: { automations: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } },
      },
    });
    render(<App />);
    const field = await screen.findByLabelText('API key');
    fireEvent.input(field, { target: { value: 'nf_secret' } });
    fireEvent.submit(field.closest('form')!);
    expect(await screen.findByText('No automations yet')).toBeTruthy();
    expect(screen.getByText(/neoflow apply/)).toBeTruthy();
    const login = sent.find((request) => request.method === 'POST')!;
    expect(login.headers.Authorization).toBe('Bearer nf_secret');
    expect(login.headers['X-Neoflow-Console']).toBe('1');
    expect(localStorage.length + sessionStorage.length).toBe(0);
    expect(document.cookie).not.toContain('nf_secret');
    expect((field as HTMLInputElement).value).toBe('');
  });

  it("shows a failed run's error, and Retry only to a session that may operate", async () => {
    location.hash = '#/automations/auto_1/runs/run_1';
    fakeApi({
      'GET /v1/console/session': { body: session(['automations:read'], 'viewer') },
      'GET /v1/automations/auto_1/runs/run_1': { body: failedRun },
    });
    render(<App />);
    expect(await screen.findByText('TypeError')).toBeTruthy();
    expect(screen.getByText('boom')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    cleanup();

    const sent = fakeApi({
      'GET /v1/console/session': { body: session(['automations:read', 'automations:operate'], 'operator') },
      'GET /v1/automations/auto_1/runs/run_1': { body: failedRun },
      'POST /v1/automations/auto_1/runs/run_1/retry': {
        status: 202,
        body: { run: { id: 'run_2', status: 'running', startedAt: '2026-12-07T04:01:00.000Z' } },
      },
    });
    render(<App />);
    fireEvent.click(await screen.findByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(location.hash).toBe('#/automations/auto_1'));
    const retry = sent.find((request) => request.method === 'POST')!;
    expect(retry.headers['X-Neoflow-Console']).toBe('1');
  });

  it('links a transaction to the configured explorer and writes its fees in GAS', async () => {
    location.hash = '#/automations/auto_1/runs/run_3';
    const txHash = '0x' + '1f'.repeat(32);
    fakeApi({
      'GET /v1/console/session': { body: session(['automations:read'], 'viewer') },
      'GET /v1/automations/auto_1/runs/run_3': {
        body: {
          ...failedRun,
          id: 'run_3',
          status: 'success',
          error: null,
          txHash,
          vmState: 'HALT',
          gasConsumed: '997780',
          systemFee: '997780',
          networkFee: '1234567',
          validUntilBlock: 100,
          relayError: null,
        },
      },
    });
    render(<App />);
    const link = await screen.findByTitle(txHash);
    expect(link.getAttribute('href')).toBe(`https://explorer.example/tx/${txHash}`);
    expect(screen.getByText('0.01234567 GAS')).toBeTruthy();
  });
});
