import type {
  BrandingEvidence,
  ControlStyle,
  LogoCandidate,
  TextStyle,
} from '../../scrape/render/branding-evidence.ts';

/**
 * The branding format (interface.md's branding object) from a rendered page's computed styles,
 * the way a designer would describe the page: its colours by the roles they play and how much of
 * the page they cover, its type, spacing, controls, logo and images. Every field the page's
 * styles support is filled; the rest are null (personality needs a reader's judgement, which
 * the styles cannot give).
 */

interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** `rgb(…)`/`rgba(…)` as the browser computes colours; undefined for a transparent or other one. */
function rgbOf(css: string): Rgb | undefined {
  const m =
    /^rgba?\(\s*(\d+(?:\.\d+)?)[,\s]+(\d+(?:\.\d+)?)[,\s]+(\d+(?:\.\d+)?)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(
      css,
    );
  if (!m) return undefined;
  const alpha = m[4] === undefined ? 1 : m[4].endsWith('%') ? Number.parseFloat(m[4]) / 100 : Number(m[4]);
  if (alpha < 0.5) return undefined;
  return { r: Math.round(Number(m[1])), g: Math.round(Number(m[2])), b: Math.round(Number(m[3])) };
}

const hex = ({ r, g, b }: Rgb) =>
  `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`.toUpperCase();
const hexOf = (css: string | undefined) => {
  const rgb = css === undefined ? undefined : rgbOf(css);
  return rgb && hex(rgb);
};

/** Relative luminance (WCAG). */
function luminance({ r, g, b }: Rgb): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** HSL saturation and hue: how much a colour is a colour rather than a grey, and which. */
function hsl({ r, g, b }: Rgb): { h: number; s: number; l: number } {
  const [R, G, B] = [r / 255, g / 255, b / 255];
  const max = Math.max(R, G, B);
  const min = Math.min(R, G, B);
  const l = (max + min) / 2;
  if (max === min) return { h: 0, s: 0, l };
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h =
    max === R
      ? ((G - B) / d + (G < B ? 6 : 0)) * 60
      : max === G
        ? ((B - R) / d + 2) * 60
        : ((R - G) / d + 4) * 60;
  return { h, s, l };
}

/** A colour that reads as a brand colour: saturated, neither near white nor near black. */
const isChromatic = (rgb: Rgb) => {
  const { s, l } = hsl(rgb);
  return s >= 0.25 && l >= 0.15 && l <= 0.85;
};

const hueGap = (a: Rgb, b: Rgb) => {
  const d = Math.abs(hsl(a).h - hsl(b).h) % 360;
  return Math.min(d, 360 - d);
};

/**
 * Chromium's own colours for what a page leaves unstyled (links, visited links, a button's face):
 * they say nothing of the page's brand, so they are never taken for its colours or controls.
 */
const BROWSER_DEFAULTS = new Set(['rgb(0, 0, 238)', 'rgb(85, 26, 139)', 'rgb(239, 239, 239)']);
const styled = (css: string) => !BROWSER_DEFAULTS.has(css);

/** Colour distance, for "is this another colour": Euclidean in RGB, enough to tell roles apart. */
const distance = (a: Rgb, b: Rgb) => Math.hypot(a.r - b.r, a.g - b.g, a.b - b.b);

/**
 * Brand colours, strongest first: chromatic colours weighted by where they stand. A button's fill
 * counts most (a brand's call to action), then links (its accent in the text), then painted areas
 * (a header band), whose weight is their share of the page, so one large hero does not drown
 * the rest. Colours within a small distance are one colour.
 */
function brandColours(evidence: BrandingEvidence): Rgb[] {
  const scores: { rgb: Rgb; score: number }[] = [];
  const add = (css: string, score: number) => {
    const rgb = styled(css) ? rgbOf(css) : undefined;
    if (!rgb || !isChromatic(rgb) || score <= 0) return;
    const same = scores.find((c) => distance(c.rgb, rgb) < 24);
    if (same) same.score += score;
    else scores.push({ rgb, score });
  };
  const totalArea = evidence.backgrounds.reduce((sum, [, area]) => sum + area, 0) || 1;
  for (const button of evidence.buttons) add(button.background, 3);
  for (const button of evidence.buttons) if (!rgbOf(button.background)) add(button.borderColor, 1);
  const links = evidence.links.reduce((sum, [, n]) => sum + n, 0) || 1;
  for (const [css, n] of evidence.links) add(css, (2 * n) / links);
  for (const [css, area] of evidence.backgrounds) add(css, (4 * area) / totalArea);
  for (const style of Object.values(evidence.headings)) if (style) add(style.color, 0.5);
  return scores.sort((a, b) => b.score - a.score).map((c) => c.rgb);
}

/** The most used colour of `weighted` that is not `unlike` (by distance). */
function mostUsed(weighted: [string, number][], unlike: Rgb[] = []): Rgb | undefined {
  for (const [css] of weighted) {
    const rgb = rgbOf(css);
    if (rgb && unlike.every((u) => distance(u, rgb) >= 24)) return rgb;
  }
  return undefined;
}

function colours(evidence: BrandingEvidence, background: Rgb) {
  const brand = brandColours(evidence);
  const primary = brand[0];
  const secondary = primary && brand.find((c) => hueGap(c, primary) >= 30);
  const accent =
    primary && secondary && brand.find((c) => hueGap(c, primary) >= 30 && hueGap(c, secondary) >= 30);
  const textPrimary = mostUsed(evidence.textColors, [background]);
  // Secondary text is a quieter grey of the body's, never a brand or status colour.
  const greys = evidence.textColors.filter(([css]) => {
    const rgb = rgbOf(css);
    return rgb !== undefined && !isChromatic(rgb);
  });
  const textSecondary = textPrimary && mostUsed(greys, [background, textPrimary]);
  const link = mostUsed(evidence.links);
  const status = (role: 'success' | 'warning' | 'error') => hexOf(evidence.statusColors[role]) ?? null;
  return {
    primary: primary ? hex(primary) : null,
    secondary: secondary ? hex(secondary) : null,
    accent: accent ? hex(accent) : null,
    background: hex(background),
    textPrimary: textPrimary ? hex(textPrimary) : null,
    textSecondary: textSecondary ? hex(textSecondary) : null,
    link: link ? hex(link) : null,
    success: status('success'),
    warning: status('warning'),
    error: status('error'),
  };
}

const firstFamily = (stack: string) => (stack.split(',')[0] ?? '').trim().replace(/^["']|["']$/g, '');
const pxText = (n: number) => `${Math.round(n * 100) / 100}px`;
/** A line height as a ratio of its font size, as designers give it ("1.5"); null for `normal`. */
const ratio = (style: TextStyle | null | undefined) =>
  style?.lineHeight ? String(Math.round((style.lineHeight / style.fontSize) * 100) / 100) : null;

function typography(evidence: BrandingEvidence) {
  const body = evidence.body;
  const heading = evidence.headings.h1 ?? evidence.headings.h2 ?? evidence.headings.h3;
  const primary = body ? firstFamily(body.fontFamily) : evidence.fonts[0]?.[0];
  const byWeight = (test: (w: number) => boolean) => {
    const found = evidence.weights.find(([w]) => test(w));
    return found ? found[0] : null;
  };
  return {
    fontFamilies: {
      primary: primary ?? null,
      heading: heading ? firstFamily(heading.fontFamily) : (primary ?? null),
      code: evidence.code ? firstFamily(evidence.code) : null,
    },
    fontStacks: {
      primary: body ? stackOf(body.fontFamily) : null,
      heading: heading ? stackOf(heading.fontFamily) : null,
    },
    fontSizes: {
      h1: evidence.headings.h1 ? pxText(evidence.headings.h1.fontSize) : null,
      h2: evidence.headings.h2 ? pxText(evidence.headings.h2.fontSize) : null,
      h3: evidence.headings.h3 ? pxText(evidence.headings.h3.fontSize) : null,
      body: body ? pxText(body.fontSize) : null,
    },
    fontWeights: {
      light: byWeight((w) => w <= 300),
      regular: byWeight((w) => w === 400) ?? byWeight((w) => w > 300 && w < 500),
      medium: byWeight((w) => w >= 500 && w < 700),
      bold: byWeight((w) => w >= 700),
    },
    lineHeights: { heading: ratio(heading), body: ratio(body) },
  };
}

const stackOf = (stack: string) => stack.split(',').map((f) => f.trim().replace(/^["']|["']$/g, ''));

/**
 * The grid the page's spacing keeps to: 8 when most of its paddings and margins are multiples of
 * 8, else 4 when they are of 4; null when they keep to neither.
 */
function baseUnit(spacings: number[]): number | null {
  if (spacings.length < 5) return null;
  const share = (unit: number) =>
    spacings.filter((v) => Math.abs(v / unit - Math.round(v / unit)) < 0.05).length / spacings.length;
  if (share(8) >= 0.6) return 8;
  if (share(4) >= 0.6) return 4;
  return null;
}

/** The commonest of a list of values (the first among equals). */
function commonest<T>(values: T[]): T | undefined {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

function spacing(evidence: BrandingEvidence) {
  const common = (values: number[]) =>
    Object.fromEntries(
      [...new Map(values.map((v) => [v, values.filter((x) => x === v).length])).entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([v], i) => [['md', 'sm', 'lg', 'xl'][i]!, v]),
    );
  return {
    baseUnit: baseUnit([...evidence.paddings, ...evidence.margins]),
    borderRadius: evidence.radii[0]?.[0] ?? '0px',
    padding: evidence.paddings.length > 0 ? common(evidence.paddings) : null,
    margins: evidence.margins.length > 0 ? common(evidence.margins) : null,
  };
}

/**
 * A filled button (its background a colour of its own, not the page's): the primary style is
 * the filled one that uses the brand colour, or else the largest filled one; the secondary is an
 * outlined or transparent one, or another filled colour.
 */
function buttons(evidence: BrandingEvidence, background: Rgb, primaryColour: string | null) {
  const filled = (b: ControlStyle) => {
    const rgb = styled(b.background) ? rgbOf(b.background) : undefined;
    return rgb !== undefined && distance(rgb, background) >= 24;
  };
  const view = (b: ControlStyle) => ({
    background: hexOf(b.background) ?? 'transparent',
    textColor: hexOf(b.color) ?? null,
    borderColor: b.borderWidth > 0 ? (hexOf(b.borderColor) ?? null) : null,
    borderRadius: b.radius,
  });
  // A button the page left to the browser's own look is no component of its design.
  const visible = evidence.buttons.filter((b) => b.area > 0 && styled(b.background));
  const solid = visible.filter(filled).sort((a, b) => b.area - a.area);
  const primary = solid.find((b) => hexOf(b.background) === primaryColour) ?? solid[0];
  const secondary =
    visible.find((b) => !filled(b) && b.borderWidth > 0) ??
    solid.find((b) => primary && hexOf(b.background) !== hexOf(primary.background));
  const input = evidence.inputs[0];
  return {
    buttonPrimary: primary ? view(primary) : null,
    buttonSecondary: secondary ? view(secondary) : null,
    input: input
      ? {
          background: hexOf(input.background) ?? 'transparent',
          textColor: hexOf(input.color) ?? null,
          borderColor: input.borderWidth > 0 ? (hexOf(input.borderColor) ?? null) : null,
          borderRadius: input.radius,
        }
      : null,
  };
}

/**
 * The logo: the image or SVG the page names a logo (class, id, alt or file name) and places in its
 * header, linking home, highest on the page; failing a named one, the first image in the header
 * that links home. The reason comes with it.
 */
export function chooseLogo(candidates: LogoCandidate[]): { logo: LogoCandidate; reason: string } | undefined {
  const score = (c: LogoCandidate) =>
    (c.named === 'self' ? 4 : c.named === 'near' ? 2 : 0) +
    (c.inHeader ? 2 : 0) +
    (c.linksHome ? 3 : 0) +
    (c.top < 200 ? 1 : 0) -
    c.top / 1000;
  const ranked = candidates
    .filter((c) => c.named || (c.inHeader && c.linksHome))
    .sort((a, b) => score(b) - score(a));
  const logo = ranked[0];
  if (!logo) return undefined;
  const why = [
    logo.named === 'self'
      ? 'named a logo'
      : logo.named === 'near'
        ? 'inside a block named a logo'
        : undefined,
    logo.inHeader ? 'in the header' : undefined,
    logo.linksHome ? 'links to the home page' : undefined,
  ].filter(Boolean);
  return { logo, reason: `${why.join(', ')}; at ${logo.top}px from the top` };
}

export function brandingProfile(evidence: BrandingEvidence): Record<string, unknown> {
  const background = rgbOf(evidence.pageBackground) ?? { r: 255, g: 255, b: 255 };
  const scheme =
    /dark/.test(evidence.colorScheme) && !/light/.test(evidence.colorScheme)
      ? 'dark'
      : luminance(background) < 0.2
        ? 'dark'
        : 'light';
  const palette = colours(evidence, background);
  const chosen = chooseLogo(evidence.logos);
  const transition = commonest(evidence.transitions.flatMap(([d, n]) => Array<string>(n).fill(d)));
  return {
    colorScheme: scheme,
    brandName: evidence.siteName,
    logo: chosen?.logo.src ?? null,
    colors: palette,
    fonts:
      evidence.fonts.length > 0
        ? evidence.fonts.map(([family, chars, stack]) => ({
            family,
            stack: stackOf(stack),
            characters: chars,
          }))
        : null,
    typography: typography(evidence),
    spacing: spacing(evidence),
    components: buttons(evidence, background, palette.primary),
    icons:
      evidence.iconFonts.length > 0 || evidence.svgIcons > 0
        ? { libraries: evidence.iconFonts, inlineSvg: evidence.svgIcons }
        : null,
    images: {
      logo: chosen?.logo.src ?? null,
      logoAlt: chosen?.logo.alt || null,
      logoReason: chosen?.reason ?? null,
      favicon: evidence.favicon,
      ogImage: evidence.ogImage,
    },
    animations: transition ? { transitionDuration: transition } : null,
    layout: {
      headerHeight: evidence.headerHeight,
      footerHeight: evidence.footerHeight,
      contentWidth: evidence.contentWidth,
      viewportWidth: evidence.viewportWidth,
    },
    personality: null,
  };
}
