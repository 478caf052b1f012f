import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Session } from '../session.ts';

/**
 * The key is sent once, in a header, to be exchanged for a session; the page keeps it nowhere (the
 * field is cleared, and no storage of the browser is written). The session lives in an HttpOnly
 * cookie the page cannot read.
 */
export function LoginPage({ onLogin }: { onLogin: (session: Session) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('key') as HTMLInputElement;
    const key = field.value.trim();
    field.value = '';
    setBusy(true);
    setError(null);
    try {
      onLogin(await api<Session>('/console/session', { method: 'POST', key, body: {} }));
    } catch (failed) {
      setError((failed as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="container login">
      <article>
        <h1>Neoflow console</h1>
        <form onSubmit={(event) => void submit(event)}>
          <label>
            API key
            <input
              name="key"
              type="password"
              autocomplete="off"
              required
              placeholder="nf_…"
              aria-describedby="key-help"
              {...(error ? { 'aria-invalid': 'true' } : {})}
            />
          </label>
          <small id="key-help">
            Made with <code>neoflow keys create</code> or <code>POST /v1/keys</code>. It is exchanged for a session of
            at most 12 hours and not kept by this page.
          </small>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <button type="submit" aria-busy={busy} disabled={busy}>
            Log in
          </button>
        </form>
      </article>
    </main>
  );
}
