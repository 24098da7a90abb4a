// The branding format's evidence, measured in a rendered page (src/scrape/render/branding-evidence.ts
// reads this file and its types describe what it returns). Plain JavaScript, evaluated in the page:
// every element is looked at once, at most 6,000, and every list is cut, so that the answer stays
// small whatever the page.
(() => {
  const MAX_ELEMENTS = 6000;
  const tally = (map, key, n) => map.set(key, (map.get(key) ?? 0) + n);
  const top = (map, n) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  const opaque = (c) => c !== '' && c !== 'transparent' && !/rgba\([^)]*,\s*0\)$/.test(c);
  const px = (v) => Number.parseFloat(v) || 0;
  const firstFamily = (stack) => (stack.split(',')[0] ?? '').trim().replace(/^["']|["']$/g, '');
  const absolute = (u) => {
    if (!u) return null;
    try {
      return new URL(u, document.baseURI).href;
    } catch {
      return null;
    }
  };
  const textStyle = (el) => {
    const s = getComputedStyle(el);
    return {
      fontFamily: s.fontFamily,
      fontSize: px(s.fontSize),
      fontWeight: Number(s.fontWeight) || 400,
      lineHeight: s.lineHeight === 'normal' ? null : px(s.lineHeight),
      color: s.color,
    };
  };
  const shown = (s, r) =>
    r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && Number(s.opacity) > 0;

  const backgrounds = new Map();
  const textColors = new Map();
  const fonts = new Map();
  const stacks = new Map();
  const weights = new Map();
  const links = new Map();
  const radii = new Map();
  const transitions = new Map();
  const paragraphs = new Map();
  const paddings = [];
  const margins = [];
  const buttons = [];
  const inputs = [];
  const headings = {};
  const statusColors = {};
  let code = null;
  let svgIcons = 0;
  const iconFonts = new Set();
  const pageWidth = document.documentElement.clientWidth || window.innerWidth;
  let contentWidth = null;

  const elements = document.body ? document.body.querySelectorAll('*') : [];
  let seen = 0;
  for (const el of elements) {
    if (++seen > MAX_ELEMENTS) break;
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (!shown(s, r)) continue;
    const area = Math.min(r.width, pageWidth) * Math.min(r.height, 4000);
    if (opaque(s.backgroundColor)) tally(backgrounds, s.backgroundColor, area);
    let chars = 0;
    for (const node of el.childNodes)
      if (node.nodeType === 3) chars += (node.textContent ?? '').trim().length;
    if (chars > 0) {
      tally(textColors, s.color, chars);
      const family = firstFamily(s.fontFamily);
      tally(fonts, family, chars);
      if (!stacks.has(family)) stacks.set(family, s.fontFamily);
      tally(weights, String(Number(s.fontWeight) || 400), chars);
    }
    const tag = el.tagName.toLowerCase();
    const cls = `${typeof el.className === 'string' ? el.className : ''} ${el.id}`.toLowerCase();
    if ((tag === 'h1' || tag === 'h2' || tag === 'h3') && !headings[tag]) headings[tag] = textStyle(el);
    if ((tag === 'p' || tag === 'li') && chars > 0) {
      const style = textStyle(el);
      const key = `${style.fontFamily}|${style.fontSize}|${style.fontWeight}|${style.lineHeight}|${style.color}`;
      const entry = paragraphs.get(key) ?? { style, chars: 0 };
      entry.chars += chars;
      paragraphs.set(key, entry);
    }
    if ((tag === 'code' || tag === 'pre') && !code) code = s.fontFamily;
    if (tag === 'a' && chars > 0) tally(links, s.color, 1);
    if (tag === 'svg' && r.width <= 48 && r.height <= 48) svgIcons++;
    if (/\bfa[srlbd]?\b|fa-/.test(cls)) iconFonts.add('Font Awesome');
    if (/material-icons|material-symbols/.test(cls)) iconFonts.add('Material Icons');
    if (/\bbi-|bootstrap-icons/.test(cls)) iconFonts.add('Bootstrap Icons');
    const isButton =
      tag === 'button' ||
      (tag === 'input' && /^(submit|button)$/i.test(el.type)) ||
      el.getAttribute('role') === 'button' ||
      (tag === 'a' && /\b(btn|button|cta)\b/.test(cls));
    const isInput =
      (tag === 'input' && /^(text|email|search|tel|url|password|number|)$/i.test(el.type)) ||
      tag === 'textarea' ||
      tag === 'select';
    if ((isButton || isInput) && (isButton ? buttons : inputs).length < 40) {
      const control = {
        background: s.backgroundColor,
        color: s.color,
        borderColor: s.borderTopColor,
        borderWidth: px(s.borderTopWidth),
        radius: s.borderTopLeftRadius,
        fontWeight: Number(s.fontWeight) || 400,
        area: r.width * r.height,
        label: isButton ? (el.textContent ?? '').trim().slice(0, 40) : (el.type ?? tag),
      };
      (isButton ? buttons : inputs).push(control);
    }
    if (isButton || isInput || (px(s.borderTopLeftRadius) > 0 && opaque(s.backgroundColor)))
      if (px(s.borderTopLeftRadius) > 0) tally(radii, s.borderTopLeftRadius, 1);
    if ((tag === 'a' || isButton) && s.transitionDuration && s.transitionDuration !== '0s')
      tally(transitions, s.transitionDuration.split(',')[0].trim(), 1);
    if (paddings.length < 3000 && r.width > 40) {
      for (const v of [s.paddingTop, s.paddingLeft]) if (px(v) > 0 && px(v) <= 128) paddings.push(px(v));
      for (const v of [s.marginTop, s.marginBottom]) if (px(v) > 0 && px(v) <= 128) margins.push(px(v));
    }
    for (const status of ['success', 'warning', 'error']) {
      const word =
        status === 'error'
          ? /\b(error|danger|alert-danger|invalid)\b/
          : new RegExp(`\\b(${status}|alert-${status})\\b`);
      if (!statusColors[status] && word.test(cls) && chars > 0) statusColors[status] = s.color;
    }
    if (
      contentWidth === null &&
      (tag === 'main' || /\b(container|wrapper|content)\b/.test(cls)) &&
      r.width < pageWidth - 40 &&
      r.width > pageWidth / 3
    )
      contentWidth = Math.round(r.width);
  }

  const logos = [];
  // The page's own sites: where it is served from, and where its canonical and og:url say it lives.
  const homes = new Set([new URL(document.baseURI).origin]);
  for (const selector of ['link[rel="canonical"]', 'meta[property="og:url"]']) {
    const own = absolute(
      document.querySelector(selector)?.getAttribute(selector.startsWith('link') ? 'href' : 'content'),
    );
    if (own) homes.add(new URL(own).origin);
  }
  const linksHome = (link) => {
    const target = link && absolute(link.getAttribute('href'));
    if (!target) return false;
    const url = new URL(target);
    return url.pathname === '/' && homes.has(url.origin);
  };
  const headerOf = (el) => el.closest('header, [role="banner"], nav, .header, #header') !== null;
  // 'self': the element's own class, id, alt or file name says logo or brand; 'near': a parent's.
  const namedLogo = (el) => {
    for (let at = el, i = 0; at && i < 3; at = at.parentElement, i++) {
      const words = `${typeof at.className === 'string' ? at.className : ''} ${at.id} ${at.getAttribute('alt') ?? ''} ${at.getAttribute('src') ?? ''}`;
      if (/logo|brand/i.test(words)) return i === 0 ? 'self' : 'near';
    }
    return null;
  };
  for (const el of document.querySelectorAll('img, svg')) {
    if (logos.length >= 20) break;
    const r = el.getBoundingClientRect();
    if (r.width < 16 || r.height < 8 || r.top > 600) continue;
    const isSvg = el.tagName.toLowerCase() === 'svg';
    const src = isSvg
      ? `data:image/svg+xml;utf8,${encodeURIComponent(el.outerHTML.slice(0, 20_000))}`
      : absolute(el.currentSrc || el.getAttribute('src'));
    if (!src) continue;
    const link = el.closest('a');
    logos.push({
      src,
      alt: (el.getAttribute('alt') ?? el.getAttribute('aria-label') ?? '').slice(0, 100),
      inHeader: headerOf(el),
      linksHome: linksHome(link),
      named: namedLogo(el),
      top: Math.round(r.top + window.scrollY),
      left: Math.round(r.left),
      width: Math.round(r.width),
      height: Math.round(r.height),
    });
  }

  const meta = (selector) => document.querySelector(selector)?.getAttribute('content') ?? null;
  const icon = document.querySelector(
    'link[rel~="icon"], link[rel="shortcut icon"], link[rel="apple-touch-icon"]',
  );
  const height = (selector) => {
    const el = document.querySelector(selector);
    const h = el?.getBoundingClientRect().height;
    return h ? Math.round(h) : null;
  };
  const rootStyle = getComputedStyle(document.documentElement);
  const bodyStyle = document.body ? getComputedStyle(document.body) : rootStyle;
  const pageBackground = opaque(bodyStyle.backgroundColor)
    ? bodyStyle.backgroundColor
    : opaque(rootStyle.backgroundColor)
      ? rootStyle.backgroundColor
      : 'rgb(255, 255, 255)';
  const body = [...paragraphs.values()].sort((a, b) => b.chars - a.chars)[0]?.style ?? null;
  return {
    colorScheme: rootStyle.colorScheme || 'normal',
    pageBackground,
    backgrounds: top(backgrounds, 30),
    textColors: top(textColors, 20),
    fonts: top(fonts, 10).map(([family, chars]) => [family, chars, stacks.get(family) ?? family]),
    weights: top(weights, 10).map(([w, n]) => [Number(w), n]),
    links: top(links, 10),
    headings,
    body,
    code,
    buttons,
    inputs,
    paddings,
    margins,
    radii: top(radii, 10),
    logos,
    favicon: absolute(icon?.getAttribute('href')) ?? absolute('/favicon.ico'),
    ogImage: absolute(meta('meta[property="og:image"], meta[name="og:image"]')),
    siteName: meta('meta[property="og:site_name"]') ?? meta('meta[name="application-name"]'),
    headerHeight: height('header, [role="banner"]'),
    footerHeight: height('footer, [role="contentinfo"]'),
    contentWidth,
    viewportWidth: pageWidth,
    transitions: top(transitions, 5),
    iconFonts: [...iconFonts],
    svgIcons,
    statusColors,
  };
})();
