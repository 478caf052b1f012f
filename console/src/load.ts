import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export type Loaded<T> =
  { state: 'loading' } | { state: 'failed'; error: ApiError | Error } | { state: 'done'; value: T };

/**
 * Loads what `load` answers, again whenever `keys` change, and every `pollMs` while the page is
 * shown (a run list stays live without reloading). A poll that fails keeps the last value shown.
 */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[], pollMs?: number) {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const current = useRef(load);
  current.current = load;
  const reload = useCallback(async (keepShown = false) => {
    try {
      setLoaded({ state: 'done', value: await current.current() });
    } catch (error) {
      if (!keepShown) setLoaded({ state: 'failed', error: error as Error });
    }
  }, []);
  useEffect(() => {
    setLoaded({ state: 'loading' });
    void reload();
    if (pollMs === undefined) return undefined;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload(true);
    }, pollMs);
    return () => clearInterval(timer);
  }, keys);
  return { loaded, reload: () => reload(true) };
}

/** A page of the API this session may not see (403) or this API does not have (404). */
export const unavailable = (loaded: Loaded<unknown>) =>
  loaded.state === 'failed' &&
  loaded.error instanceof ApiError &&
  (loaded.error.status === 403 || loaded.error.status === 404);
