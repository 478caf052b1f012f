import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api.ts';
import { AutomationPage } from './pages/Automation.tsx';
import { AutomationsPage } from './pages/Automations.tsx';
import { ApprovalsPage } from './pages/Approvals.tsx';
import { AuditPage } from './pages/Audit.tsx';
import { ExecutionPage, FunctionPage, FunctionsPage } from './pages/Functions.tsx';
import { LoginPage } from './pages/Login.tsx';
import { RunPage } from './pages/Run.tsx';
import { SignersPage } from './pages/Signers.tsx';
import { href, useRoute, type Route } from './router.ts';
import { may, SessionContext, type Session } from './session.ts';

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'automation':
      return <AutomationPage id={route.id} />;
    case 'run':
      return <RunPage id={route.id} runId={route.runId} />;
    case 'functions':
      return <FunctionsPage />;
    case 'function':
      return <FunctionPage id={route.id} />;
    case 'execution':
      return <ExecutionPage id={route.id} executionId={route.executionId} />;
    case 'signers':
      return <SignersPage />;
    case 'approvals':
      return <ApprovalsPage />;
    case 'audit':
      return <AuditPage />;
    default:
      return <AutomationsPage />;
  }
}

const sections: { page: Route['page']; label: string; link: string; scope?: string }[] = [
  { page: 'automations', label: 'Automations', link: href.automations() },
  { page: 'functions', label: 'Functions', link: href.functions() },
  { page: 'signers', label: 'Signers', link: href.signers() },
  { page: 'approvals', label: 'Approvals', link: href.approvals() },
  { page: 'audit', label: 'Audit log', link: href.audit(), scope: 'audit:read' },
];

function Shell({ session, onLogout }: { session: Session; onLogout: () => void }) {
  const route = useRoute();
  const logout = async () => {
    await api('/console/session', { method: 'DELETE' }).catch(() => undefined);
    onLogout();
  };
  return (
    <SessionContext.Provider value={session}>
      <header class="container">
        <nav aria-label="Sections">
          <ul>
            <li>
              <strong>Neoflow</strong>
            </li>
          </ul>
          <ul class="sections">
            {sections
              .filter((section) => section.scope === undefined || may(session, section.scope))
              .map((section) => (
                <li key={section.page}>
                  <a href={section.link} {...(route.page === section.page ? { 'aria-current': 'page' } : {})}>
                    {section.label}
                  </a>
                </li>
              ))}
            <li>
              <button type="button" class="secondary outline" onClick={() => void logout()}>
                Log out
              </button>
            </li>
          </ul>
        </nav>
        <p class="who">
          {session.keyName ?? session.keyId} · {session.role ?? 'custom scopes'} · <code>{session.accountId}</code>
        </p>
      </header>
      <main class="container">
        <Page route={route} />
      </main>
    </SessionContext.Provider>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  useEffect(() => {
    api<Session>('/console/session')
      .then(setSession)
      .catch((error: unknown) => {
        if (!(error instanceof ApiError) || error.status === 401) setSession(null);
        else setSession(null);
      });
  }, []);
  if (session === undefined) return <main class="container" aria-busy="true" />;
  if (session === null) return <LoginPage onLogin={setSession} />;
  return <Shell session={session} onLogout={() => setSession(null)} />;
}
