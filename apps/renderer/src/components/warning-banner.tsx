/** What the host cannot do on this machine (e.g. a native capability missing), always in view. */
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../store/store';
import { Prose } from './prose';

export function WarningBanner() {
  const warnings = useAppStore(useShallow((state) => state.snapshot?.warnings ?? []));
  if (warnings.length === 0) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="warning-banner">
      <span className="banner-icon" aria-hidden="true">
        ⚠
      </span>
      <div className="banner-body">
        <strong>Reduced protection on this machine.</strong>{' '}
        {warnings.map((warning) => (
          <span key={warning} className="banner-warning-line">
            <Prose text={warning} />{' '}
          </span>
        ))}
      </div>
    </div>
  );
}
