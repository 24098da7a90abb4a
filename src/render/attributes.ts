import type { Element, Root } from 'hast';
import { selectAll } from 'hast-util-select';
import { find, html, svg } from 'property-information';

/** One entry of the `attributes` format: a CSS selector and the attribute to read. */
export interface AttributeQuery {
  selector: string;
  attribute: string;
}

export interface AttributeValues extends AttributeQuery {
  /** In document order; elements without the attribute, or with it empty, give none. */
  values: string[];
}

/**
 * An attribute's text as HTML would write it: hast keeps attributes as properties (`class` as
 * a `className` list, `data-id` as `dataId`, SVG's `stroke-width` as `strokeWidth`), named by
 * the schema of the element's space, which the element does not record: HTML's is tried
 * first (its names are case-insensitive), then SVG's.
 */
function attributeText(element: Element, name: string): string | undefined {
  for (const info of [find(html, name.toLowerCase()), find(svg, name)]) {
    const value = element.properties[info.property];
    if (value === undefined || value === null || value === false) continue;
    if (value === true) return undefined;
    if (Array.isArray(value)) return value.join(info.commaSeparated ? ', ' : ' ');
    return String(value);
  }
  return undefined;
}

/**
 * For each query, in order, the values of its attribute on the elements its selector picks in
 * the tree the `html` output is written from (main content and tag filters applied); an empty
 * list is kept. An element without the attribute is read for `data-<name>`, as upstream's
 * fallback extractor reads it.
 */
export function selectAttributes(tree: Root, queries: readonly AttributeQuery[]): AttributeValues[] {
  return queries.map(({ selector, attribute }) => {
    const values: string[] = [];
    for (const element of selectAll(selector, tree)) {
      const value = attributeText(element, attribute) ?? attributeText(element, `data-${attribute}`);
      if (value) values.push(value);
    }
    return { selector, attribute, values };
  });
}
