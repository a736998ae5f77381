/**
 * The containers attributed to a session, on its card: name, image, state, ports and how strongly
 * the session is known to own each (strong: its own CLI created it; weak: only its directory names it).
 */
import type { SessionView } from '@treewarden/protocol';

export function SessionContainers({ session }: { session: SessionView }) {
  const containers = session.containers ?? [];
  if (containers.length === 0) return null;
  return (
    <section className="session-containers" data-testid="session-containers" aria-label="Containers of this session">
      <h3>Containers</h3>
      <ul>
        {containers.map((c) => (
          <li key={c.id} data-testid="session-container" data-strength={c.strength} data-state={c.state}>
            <strong>{c.name}</strong> <span className="muted">{c.image}</span> · {c.state}
            {c.ports.length > 0 ? ` · ${c.ports.join(', ')}` : ''} · {c.strength}
            <div className="session-evidence">{c.evidence.map((e) => e.detail).join(' · ')}</div>
          </li>
        ))}
      </ul>
    </section>
  );
}
