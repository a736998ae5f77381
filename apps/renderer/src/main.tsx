import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadScenarios, requestWatchSystem } from './actions/actions';
import { App } from './components/app';
import { useAppStore } from './store/store';
import { connectStore } from './transport/connect';
import './styles/base.css';
import './styles/layout.css';
import './styles/tree.css';
import './styles/widgets.css';
import './styles/responsive.css';
import './styles/truth.css';
import './styles/sessions.css';
import './styles/alerts.css';
import './styles/history.css';

connectStore(useAppStore, () => {
  // After a (re)connect the host knows nothing of this page: re-ask for what the view shows.
  const state = useAppStore.getState();
  if (state.view === 'system') void requestWatchSystem(true);
  if (state.view === 'scenarios') void loadScenarios();
});

const container = document.getElementById('root');
if (!container) throw new Error('index.html must contain <div id="root">');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
