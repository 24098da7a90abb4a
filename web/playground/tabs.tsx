import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

export interface Tab {
  id: string;
  label: string;
  content: () => ComponentChildren;
}

/**
 * ARIA tabs: one tab stop for the list, arrow keys (and Home, End) move between tabs, the panel
 * is focusable so that its content can be scrolled from the keyboard.
 */
export function Tabs({ tabs, label }: { tabs: Tab[]; label: string }) {
  const [selected, setSelected] = useState(tabs[0]?.id ?? '');
  const buttons = useRef<Record<string, HTMLButtonElement | null>>({});
  const current = tabs.find((t) => t.id === selected) ?? tabs[0];
  if (!current) return null;
  const move = (event: KeyboardEvent) => {
    const index = tabs.indexOf(current);
    const next = {
      ArrowRight: tabs[(index + 1) % tabs.length],
      ArrowLeft: tabs[(index - 1 + tabs.length) % tabs.length],
      Home: tabs[0],
      End: tabs[tabs.length - 1],
    }[event.key];
    if (!next) return;
    event.preventDefault();
    setSelected(next.id);
    buttons.current[next.id]?.focus();
  };
  return (
    <div class="tabs">
      <div role="tablist" aria-label={label} onKeyDown={move}>
        {tabs.map((tab) => (
          <button
            type="button"
            role="tab"
            key={tab.id}
            id={`tab-${tab.id}`}
            aria-selected={tab === current}
            aria-controls={`panel-${tab.id}`}
            tabIndex={tab === current ? 0 : -1}
            ref={(el) => {
              buttons.current[tab.id] = el;
            }}
            onClick={() => setSelected(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`panel-${current.id}`}
        aria-labelledby={`tab-${current.id}`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: WAI-ARIA's tabs pattern: a focusable panel scrolls from the keyboard
        tabIndex={0}
        class="panel"
      >
        {current.content()}
      </div>
    </div>
  );
}
