/** Redoc's standalone bundle, loaded before this script, sets this global. */
declare const Redoc: {
  init(specUrl: string, options: Record<string, unknown>, element: HTMLElement | null): void;
};

const system = 'system-ui, sans-serif';
// Module scripts run after deferred classic ones in document order, so Redoc is there by now.
Redoc.init(
  '/docs/openapi.json',
  {
    expandResponses: '200',
    // Redoc's default fonts are web fonts, which the page does not load (it fetches nothing from elsewhere).
    theme: {
      typography: {
        fontFamily: system,
        headings: { fontFamily: system },
        code: { fontFamily: 'ui-monospace, monospace' },
      },
    },
  },
  document.getElementById('reference'),
);
