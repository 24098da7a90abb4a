/**
 * An entry of an RTF table destination (`\fonttbl`, `\stylesheet`): its name is the text up
 * to the first `;`, possibly split over several text runs.
 */
export interface NamedEntry {
  name: string[];
  /** The name ended (`;`): later text in the entry is not part of it. */
  named: boolean;
}

/** Adds a text run to the entry's name, up to the terminating `;`. */
export function appendName(entry: NamedEntry | undefined, text: string): void {
  if (!entry || entry.named) return;
  const semicolon = text.indexOf(';');
  entry.name.push(semicolon < 0 ? text : text.slice(0, semicolon));
  if (semicolon >= 0) entry.named = true;
}
