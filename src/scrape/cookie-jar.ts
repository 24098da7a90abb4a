/**
 * Cookies set during one scrape's redirects, sent back to the host that set them. Sites that set
 * a cookie and redirect to check it (consent and session checks) would otherwise redirect in a
 * loop. Kept per host as written, for this one request only: nothing is stored.
 */
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  /** Take the `Set-Cookie` headers of an answer from `host`. */
  store(host: string, setCookie: readonly string[] | undefined): void {
    for (const line of setCookie ?? []) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const cookies = this.byHost.get(host) ?? new Map<string, string>();
      this.byHost.set(host, cookies);
      if (expired(attributes)) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  /** The `Cookie` header for a request to `host`, or undefined when it has none. */
  header(host: string): string | undefined {
    const cookies = this.byHost.get(host);
    if (!cookies || cookies.size === 0) return undefined;
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** `Max-Age=0` or an `Expires` in the past: the server deletes the cookie. */
function expired(attributes: readonly string[]): boolean {
  for (const attribute of attributes) {
    const [key = '', value = ''] = attribute.split('=', 2).map((s) => s.trim());
    if (key.toLowerCase() === 'max-age' && Number(value) <= 0) return true;
    if (key.toLowerCase() === 'expires' && Date.parse(value) < Date.now()) return true;
  }
  return false;
}
