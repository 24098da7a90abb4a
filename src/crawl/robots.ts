import robotsParserModule from 'robots-parser';
import { limits } from '../limits.ts';
import { bareHost, fetchableUrl } from './url-key.ts';

/** What robots-parser answers with (the part used here). */
interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}

/**
 * The package is CommonJS (`module.exports = function`), which Node gives as the default import;
 * its types declare an ES default export, which TypeScript would look for one level deeper.
 */
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;

/** Quire's robots.txt token: the name a site writes `User-agent: Quire` for. */
export const robotsAgent = 'Quire';

/**
 * Upstream's tokens: sites that wrote rules for Firecrawl expect them to hold for a crawler
 * that stands in for it (robots-parser compares tokens case-insensitively, so these are one
 * group; both are asked, as upstream does).
 */
const firecrawlAgents = ['FireCrawlAgent', 'FirecrawlAgent'] as const;

const USER_AGENT_LINE = /^[ \t]*user-agent[ \t]*:[ \t]*([^#\r\n]*)/gim;

/** The agent tokens a robots.txt has groups for, as robots-parser keys them (lower case, no version). */
function groupsOf(body: string): Set<string> {
  const groups = new Set<string>();
  for (const [, token] of body.matchAll(USER_AGENT_LINE)) {
    const name = token!.toLowerCase();
    const slash = name.indexOf('/');
    groups.add((slash === -1 ? name : name.slice(0, slash)).trim());
  }
  return groups;
}

/** Allowed for Quire and for Firecrawl (robots-parser answers undefined off its origin: not here). */
function allowedForAll(robot: Robot, url: string): boolean {
  return (
    robot.isAllowed(url, robotsAgent) !== false &&
    firecrawlAgents.some((agent) => robot.isAllowed(url, agent) !== false)
  );
}

/** Whether a fetched robots.txt is a page, JSON or XML instead (a soft 404): read as empty, upstream's rule. */
function isNotRobots(body: string, contentType: string | undefined): boolean {
  const mime = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mime === 'text/html' || /[/+](?:json|xml)$/.test(mime)) return true;
  const start = body.replace(/^\uFEFF/, '').trimStart();
  return start.startsWith('<') || start.startsWith('{');
}

/**
 * A site's robots.txt as a crawl obeys it, matched by the `robots-parser` package. A URL is
 * allowed when the rules allow it for Quire's token AND for Firecrawl's (each agent falling back
 * to the `*` group when it has none), on its path or, without a trailing slash, on the path with
 * one (upstream's leniency, so that `Allow: /docs/` admits `/docs`). Unlike upstream, the
 * leniency is not given to a file name (`/a.pdf`) or to a path a `$`-anchored rule refuses
 * (`Disallow: /*.pdf$`, `Disallow: /search$`), which it would otherwise always open. The rules bind the host they were fetched from, under either scheme
 * and with or without `www.` (as the crawl counts those as one site); other hosts are not theirs
 * to judge, so they are allowed here. Status codes are the fetcher's to read: a failed fetch is
 * allowAll(), as upstream.
 */
export class RobotsRules {
  private readonly robot: Robot | undefined;
  private readonly origin: URL | undefined;
  private readonly groups: Set<string>;
  /** The file as parsed, to read the line of a rule robots-parser matched. */
  private readonly text: string;
  private lines: string[] | undefined;

  private constructor(robot: Robot | undefined, origin: URL | undefined, text: string) {
    this.robot = robot;
    this.origin = origin;
    this.groups = groupsOf(text);
    this.text = text;
  }

  /** The rules of a fetched robots.txt; a body that is HTML, JSON or XML counts as empty (allow all). */
  static parse(robotsUrl: string, body: string, contentType?: string): RobotsRules {
    const origin = URL.parse(robotsUrl);
    if (!origin || isNotRobots(body, contentType)) return RobotsRules.allowAll();
    const text = body.length > limits.robotsChars ? body.slice(0, limits.robotsChars) : body;
    return new RobotsRules(robotsParser(origin.href, text), origin, text);
  }

  /** No robots.txt, one that failed to load, or ignoreRobotsTxt. */
  static allowAll(): RobotsRules {
    return new RobotsRules(undefined, undefined, '');
  }

  /** Whether the crawl may fetch `url`. */
  allows(url: string): boolean {
    const { robot, origin } = this;
    if (!robot || !origin) return true;
    const target = URL.parse(url);
    if (!target || bareHost(target.hostname) !== bareHost(origin.hostname) || target.port !== origin.port) {
      return true;
    }
    // Asked on the robots.txt's own origin: robots-parser answers nothing for another scheme or host.
    const onOrigin = new URL(origin.href);
    onOrigin.pathname = target.pathname;
    onOrigin.search = target.search;
    if (allowedForAll(robot, onOrigin.href)) return true;
    const name = onOrigin.pathname.slice(onOrigin.pathname.lastIndexOf('/') + 1);
    if (name === '' || name.includes('.') || this.refusedByAnchoredRule(robot, onOrigin.href)) return false;
    onOrigin.pathname += '/';
    return allowedForAll(robot, onOrigin.href);
  }

  /** Whether an agent's refusal of `url` comes from a rule ending in `$`: one meant for this exact path. */
  private refusedByAnchoredRule(robot: Robot, url: string): boolean {
    for (const agent of [robotsAgent, ...firecrawlAgents]) {
      if (robot.isAllowed(url, agent) !== false) continue;
      // robots-parser numbers the lines of the text it was given, split as here.
      this.lines ??= this.text.split(/\r\n|\r|\n/);
      const line = this.lines[robot.getMatchingLineNumber(url, agent) - 1] ?? '';
      if (line.replace(/#.*/, '').trim().endsWith('$')) return true;
    }
    return false;
  }

  /**
   * Seconds to wait between requests, from the group that applied: Quire's when the file has
   * one, else Firecrawl's, else `*`'s; at most `limits.robotsCrawlDelayMaxS`.
   */
  crawlDelayS(): number | undefined {
    if (!this.robot) return undefined;
    const agent = this.groups.has(robotsAgent.toLowerCase()) ? robotsAgent : firecrawlAgents[1];
    const delay = this.robot.getCrawlDelay(agent);
    if (delay === undefined || !Number.isFinite(delay) || delay < 0) return undefined;
    return Math.min(delay, limits.robotsCrawlDelayMaxS);
  }

  /** The file's `Sitemap:` URLs: absolute (resolved against the robots.txt), http(s), each once. */
  sitemaps(): string[] {
    if (!this.robot || !this.origin) return [];
    const found = new Set<string>();
    for (const raw of this.robot.getSitemaps()) {
      const url = fetchableUrl(raw.trim(), this.origin.href);
      if (url) found.add(url);
    }
    return [...found];
  }
}
