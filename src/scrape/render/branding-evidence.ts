import fs from 'node:fs';

/**
 * What the branding format is read from: a rendered page's computed styles, measured in the page
 * (collectBrandingEvidence runs there, so it is self-contained) and handed back as plain data,
 * bounded in size whatever the page holds. src/enrich/branding/branding.ts makes the contract's
 * object of it.
 */

/** A control's look (a button, a link styled as one, a text input), as the browser computed it. */
export interface ControlStyle {
  background: string;
  color: string;
  borderColor: string;
  borderWidth: number;
  radius: string;
  fontWeight: number;
  /** Painted area in CSS pixels: how much of the page the control takes. */
  area: number;
  /** Its words, or the input's type: what it says it does. */
  label: string;
}

export interface TextStyle {
  fontFamily: string;
  fontSize: number;
  fontWeight: number;
  /** Pixels; null for `normal`. */
  lineHeight: number | null;
  color: string;
}

export interface LogoCandidate {
  /** An image's URL (absolute), or an inline SVG as a data URL. */
  src: string;
  alt: string;
  /** Inside the page's header, banner or top navigation. */
  inHeader: boolean;
  /** Links to the root of the page's own site (where it is served, or its canonical URL's). */
  linksHome: boolean;
  /** `logo` or `brand` in its own class, id, alt or file name (`self`), or in a parent's (`near`). */
  named: 'self' | 'near' | null;
  top: number;
  left: number;
  width: number;
  height: number;
}

export interface BrandingEvidence {
  /** The root's computed `color-scheme`. */
  colorScheme: string;
  /** The page's own background: the body's, else the root's, else white. */
  pageBackground: string;
  /** Opaque background colours, by the area they paint. */
  backgrounds: [string, number][];
  /** Text colours, by the characters drawn in them. */
  textColors: [string, number][];
  /** Font families (the first of each stack, unquoted) and their stacks, by characters. */
  fonts: [string, number, string][];
  /** Font weights, by characters. */
  weights: [number, number][];
  /** Link colours, by how many links. */
  links: [string, number][];
  /** The first heading of each level 1-3. */
  headings: Partial<Record<'h1' | 'h2' | 'h3', TextStyle>>;
  /** Running text: the paragraph style that draws the most characters. */
  body: TextStyle | null;
  /** The font family of code, when the page shows any. */
  code: string | null;
  buttons: ControlStyle[];
  inputs: ControlStyle[];
  /** Padding and margin values in pixels, of the page's blocks. */
  paddings: number[];
  margins: number[];
  /** Border radii of controls and cards, by how many. */
  radii: [string, number][];
  logos: LogoCandidate[];
  favicon: string | null;
  ogImage: string | null;
  siteName: string | null;
  headerHeight: number | null;
  footerHeight: number | null;
  /** The width of the block that holds the page's content, when it is narrower than the page. */
  contentWidth: number | null;
  viewportWidth: number;
  /** Transition durations of links and controls, by how many. */
  transitions: [string, number][];
  /** Icon fonts in use (Font Awesome, Material Icons, ...) and how many inline SVG icons. */
  iconFonts: string[];
  svgIcons: number;
  /** Colours the page gives its success, warning and error messages, by their class names. */
  statusColors: Partial<Record<'success' | 'warning' | 'error', string>>;
}

/** The collector, evaluated in the page as it stands in its file (plain JavaScript: it runs in the browser). */
export const brandingScript = fs.readFileSync(new URL('./branding-collector.js', import.meta.url), 'utf8');
