import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brandingProfile, chooseLogo } from '../../src/enrich/branding/branding.ts';
import type { BrandingEvidence, LogoCandidate } from '../../src/scrape/render/branding-evidence.ts';

/** The branding object from computed-style evidence the test writes: roles, scheme, spacing, logo. */

function evidence(overrides: Partial<BrandingEvidence> = {}): BrandingEvidence {
  return {
    colorScheme: 'normal',
    pageBackground: 'rgb(255, 255, 255)',
    backgrounds: [],
    textColors: [],
    fonts: [],
    weights: [],
    links: [],
    headings: {},
    body: null,
    code: null,
    buttons: [],
    inputs: [],
    paddings: [],
    margins: [],
    radii: [],
    logos: [],
    favicon: null,
    ogImage: null,
    siteName: null,
    headerHeight: null,
    footerHeight: null,
    contentWidth: null,
    viewportWidth: 1280,
    transitions: [],
    iconFonts: [],
    svgIcons: 0,
    statusColors: {},
    ...overrides,
  };
}

const logo = (overrides: Partial<LogoCandidate>): LogoCandidate => ({
  src: 'https://example.com/a.png',
  alt: '',
  inHeader: false,
  linksHome: false,
  named: null,
  top: 10,
  left: 10,
  width: 100,
  height: 40,
  ...overrides,
});

describe('branding from computed styles', () => {
  it('reads a dark page: its scheme from its background, grey secondary text, a brand colour from its buttons', () => {
    const profile = brandingProfile(
      evidence({
        pageBackground: 'rgb(17, 17, 17)',
        textColors: [
          ['rgb(240, 240, 240)', 900],
          ['rgb(22, 163, 74)', 300],
          ['rgb(150, 150, 150)', 200],
        ],
        buttons: [
          {
            background: 'rgb(22, 163, 74)',
            color: 'rgb(255, 255, 255)',
            borderColor: 'rgb(22, 163, 74)',
            borderWidth: 0,
            radius: '9999px',
            fontWeight: 600,
            area: 4000,
            label: 'Start',
          },
        ],
        // A large grey band is no brand colour, however much it paints.
        backgrounds: [
          ['rgb(40, 40, 40)', 900_000],
          ['rgb(22, 163, 74)', 4000],
        ],
      }),
    );
    assert.equal(profile.colorScheme, 'dark');
    const colors = profile.colors as Record<string, string | null>;
    assert.equal(colors.primary, '#16A34A');
    assert.equal(colors.background, '#111111');
    assert.equal(colors.textPrimary, '#F0F0F0');
    assert.equal(colors.textSecondary, '#969696');
    assert.equal(colors.secondary, null);
    const components = profile.components as { buttonPrimary: Record<string, string | null> };
    assert.deepEqual(components.buttonPrimary, {
      background: '#16A34A',
      textColor: '#FFFFFF',
      borderColor: null,
      borderRadius: '9999px',
    });
  });

  it('finds the spacing grid: 8, else 4, else none', () => {
    const unit = (paddings: number[]) =>
      (brandingProfile(evidence({ paddings })).spacing as { baseUnit: number | null }).baseUnit;
    assert.equal(unit([8, 16, 24, 32, 16, 8]), 8);
    assert.equal(unit([4, 12, 20, 8, 4, 28]), 4);
    assert.equal(unit([5, 7, 13, 9, 11, 3]), null);
    assert.equal(unit([8]), null, 'too few to tell');
  });

  it('chooses the logo the page names and places in its header, and says why; none without evidence', () => {
    const chosen = chooseLogo([
      logo({ src: 'https://example.com/hero.jpg', top: 300, width: 800, height: 400 }),
      logo({ src: 'https://example.com/partner.png', named: 'self', top: 2400 }),
      logo({ src: 'https://example.com/call.svg', named: 'near', inHeader: true, top: 5 }),
      logo({ src: 'https://example.com/brand.svg', named: 'self', inHeader: true, linksHome: true, top: 60 }),
    ]);
    assert.equal(chosen?.logo.src, 'https://example.com/brand.svg');
    assert.equal(chosen?.reason, 'named a logo, in the header, links to the home page; at 60px from the top');
    assert.equal(chooseLogo([logo({ src: 'https://example.com/hero.jpg' })]), undefined);
    // Unnamed, but in the header and linking home: the site's mark.
    assert.equal(
      chooseLogo([logo({ src: 'https://example.com/mark.png', inHeader: true, linksHome: true })])?.logo.src,
      'https://example.com/mark.png',
    );
  });

  it('leaves what the styles cannot support null: no personality, no fonts, no icons', () => {
    const profile = brandingProfile(evidence());
    assert.equal(profile.personality, null);
    assert.equal(profile.fonts, null);
    assert.equal(profile.icons, null);
    assert.equal(profile.logo, null);
    assert.equal(profile.colorScheme, 'light');
  });
});
