import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { gasFromDecimal, gasFromFractions, localTime, shortHash, utcTime } from './format.ts';
import type { Loaded } from './load.ts';
import { useSession } from './session.ts';

/** A time in the browser's zone; its UTC value on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={utcTime(iso)}>
      {localTime(iso)}
    </time>
  );
}

/** GAS with its 8 decimals, from the chain's fractions or from a decimal amount. */
export function Gas({ fractions, decimal }: { fractions?: string | null; decimal?: string | null }) {
  const amount = fractions !== undefined ? gasFromFractions(fractions) : gasFromDecimal(decimal);
  return <span class="gas">{amount === '—' ? amount : `${amount} GAS`}</span>;
}

/** A long hash shortened, the whole value on hover and in a copy button. */
export function Hash({ value, href }: { value: string | null | undefined; href?: string | undefined }) {
  const [copied, setCopied] = useState(false);
  if (!value) return <span>—</span>;
  const copy = async () => {
    await navigator.clipboard?.writeText(value);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  const short = shortHash(value);
  return (
    <span class="hash">
      {href ? (
        <a href={href} title={value} rel="noopener noreferrer" target="_blank">
          <code>{short}</code>
        </a>
      ) : (
        <code title={value}>{short}</code>
      )}
      <button type="button" class="copy secondary outline" onClick={() => void copy()} aria-label={`Copy ${value}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

/** A transaction's hash, linked to the configured explorer. */
export function TxHash({ value }: { value: string | null | undefined }) {
  const { explorerUrl } = useSession();
  return <Hash value={value} href={value && explorerUrl ? `${explorerUrl}${value}` : undefined} />;
}

export function Status({ status }: { status: string }) {
  return <mark class={`status status-${status}`}>{status}</mark>;
}

/** What a page shows while it loads, or when loading failed. */
export function Loading<T>({ loaded, children }: { loaded: Loaded<T>; children: (value: T) => ComponentChildren }) {
  if (loaded.state === 'loading') return <p aria-busy="true">Loading…</p>;
  if (loaded.state === 'failed') {
    return (
      <p role="alert" class="error">
        {loaded.error.message}
      </p>
    );
  }
  return <>{children(loaded.value)}</>;
}

/** An empty list: what to do next, with the command that does it. */
export function Empty({ title, children, command }: { title: string; children: ComponentChildren; command: string }) {
  return (
    <article class="empty">
      <h3>{title}</h3>
      <p>{children}</p>
      <pre>
        <code>{command}</code>
      </pre>
    </article>
  );
}

/** A button that calls the API, says it is busy meanwhile, and shows what went wrong. */
export function Action({
  label,
  run,
  variant,
}: {
  label: string;
  run: () => Promise<unknown>;
  variant?: 'secondary' | 'contrast';
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const press = async () => {
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (failed) {
      setError((failed as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button type="button" class={variant} aria-busy={busy} disabled={busy} onClick={() => void press()}>
        {label}
      </button>
      {error && (
        <small role="alert" class="error">
          {error}
        </small>
      )}
    </span>
  );
}

/** A table that scrolls within itself, never the page, on a narrow screen. */
export function Table({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="overflow-auto" role="region" aria-label={label} tabIndex={0}>
      <table class="striped">{children}</table>
    </div>
  );
}
