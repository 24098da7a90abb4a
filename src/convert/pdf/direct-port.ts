/**
 * The channel between pdf.js's two halves when both run in this thread. pdf.js's own (its fake
 * worker's LoopbackPort) deep-copies every message with structuredClone, as a real worker's
 * postMessage would: every glyph of every text run and operator list, a tenth of a fast PDF
 * conversion's CPU and much of its garbage. Here both halves share one heap and only read what
 * the other sent, so messages are handed over as they are, but for stream chunks, which the
 * sender reuses once sent and which go as shallow copies (see detached). Written for pdf.js 6.5
 * (pinned in package.json); test/unit/pdf-direct-port.test.ts compares what pdf.js gives back through
 * it with its own copying channel's.
 */

type Listener = (event: { data: unknown }) => void;

/** What pdf.js's MessageHandler posts: a stream message carries its payload in `chunk`. */
interface Message {
  chunk?: unknown;
}

/**
 * A stream chunk as the sender leaves it: pdf.js reuses the object and its arrays for the next
 * chunk as soon as this one is sent (text content sets `items = []`, an operator list empties
 * its arrays with `length = 0`), so the chunk and its arrays are copied, one level deep.
 */
function detached(chunk: object): object {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(chunk)) copy[key] = Array.isArray(value) ? value.slice() : value;
  return copy;
}

export class DirectPort {
  readonly #listeners = new Set<Listener>();

  postMessage(message: Message): void {
    const chunk = message?.chunk;
    const data =
      typeof chunk === 'object' && chunk !== null ? { ...message, chunk: detached(chunk) } : message;
    // Later, as a worker's message would arrive: pdf.js expects no reentrant delivery.
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener.call(this, { data });
    });
  }

  addEventListener(_type: 'message', listener: Listener): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: 'message', listener: Listener): void {
    this.#listeners.delete(listener);
  }

  terminate(): void {
    this.#listeners.clear();
  }
}
