import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// base './' so the same dist loads from file:// in Electron and from `treewarden serve` over HTTP.
export default defineConfig({
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No data: URIs: the CSP allows only 'self'.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
});
