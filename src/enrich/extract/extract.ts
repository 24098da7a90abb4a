import { type JsonObject, type JsonValue, putOwn } from '../json.ts';
import type { Outline } from '../outline.ts';
import { coerce, type Habits, splitList } from './coerce.ts';
import { dateRange, type Fact, type Facts, type RecordTable, readFacts, type Section } from './facts.ts';
import { MATCH_THRESHOLD, matchScore, type Name, namesOf, phrase } from './match.ts';
import { type Property, type Shape, shapeOf } from './schema-shape.ts';

/**
 * Schema-guided extraction without a model: each property of the schema is looked for among the
 * document's own facts (labelled values, tables, sections) and filled only from what the document
 * states, coerced to the property's type. A property nothing names is left out: never guessed.
 */

type ObjectShape = Extract<Shape, { type: 'object' }>;

/** Where an object's properties are looked for: a range of blocks, and a name its labels carry. */
interface Scope {
  from: number;
  to: number;
  prefix: string[];
}

const SCALAR = new Set(['string', 'number', 'integer', 'boolean', 'unknown']);
const isScalar = (s: Shape) => SCALAR.has(s.type);
const isList = (s: Shape): s is Extract<Shape, { type: 'array' }> => s.type === 'array' && isScalar(s.items);
const recordsOf = (s: Shape): ObjectShape | undefined =>
  s.type === 'array' && s.items.type === 'object' ? s.items : undefined;

class Extractor {
  private readonly phrases = new Map<string, string[]>();
  private readonly facts: Facts;

  constructor(facts: Facts) {
    this.facts = facts;
  }

  private phraseOf(label: string): string[] {
    let words = this.phrases.get(label);
    if (!words) {
      words = phrase(label);
      this.phrases.set(label, words);
    }
    return words;
  }

  private score(label: string, names: Name[]): number {
    return matchScore(this.phraseOf(label), names);
  }

  private inScope(block: number, scope: Scope): boolean {
    return block >= scope.from && block < scope.to;
  }

  /** The best-named section inside the scope, for a property with these names. */
  private section(names: Name[], scope: Scope): Section | undefined {
    let best: { section: Section; score: number } | undefined;
    for (const section of this.facts.sections) {
      if (section.block < scope.from || section.end > scope.to) continue;
      const score = this.score(section.heading, names);
      if (score >= MATCH_THRESHOLD && (!best || score > best.score)) best = { section, score };
    }
    return best?.section;
  }

  object(shape: ObjectShape, scope: Scope): JsonObject {
    const out: JsonObject = {};
    const plain = shape.properties.filter((p) => isScalar(p.shape) || isList(p.shape));
    this.fromFacts(plain, scope, out);
    for (const p of plain) {
      if (Object.hasOwn(out, p.name)) continue;
      if (isList(p.shape)) {
        const list = this.listFromSection(p, p.shape, scope) ?? this.listFromColumn(p, p.shape, scope);
        if (list) putOwn(out, p.name, list);
      } else {
        const found = this.byFormat(p.shape, scope);
        if (found !== undefined) putOwn(out, p.name, found);
      }
    }
    for (const p of shape.properties) {
      const item = recordsOf(p.shape);
      if (item) {
        const names = namesOf(p, scope.prefix);
        const records = this.fromTables(item, names, scope) ?? this.fromSubsections(item, names, scope);
        if (records && records.length > 0) putOwn(out, p.name, records);
      } else if (p.shape.type === 'object') {
        const section = this.section(namesOf(p, scope.prefix), scope);
        const inner = section
          ? this.object(p.shape, { from: section.block, to: section.end, prefix: [] })
          : this.object(p.shape, { ...scope, prefix: [...scope.prefix, ...phrase(p.name)] });
        if (Object.keys(inner).length > 0) putOwn(out, p.name, inner);
      }
    }
    return out;
  }

  /**
   * Labelled values to properties, best pairs first, each value used once: "Due date" goes to
   * `dueDate` before `date` can take it, and `date` then gets "Invoice date".
   */
  private fromFacts(properties: Property[], scope: Scope, out: JsonObject): void {
    const pairs: { property: Property; fact: Fact; score: number }[] = [];
    const available = this.facts.facts.filter((f) => this.inScope(f.block, scope));
    for (const property of properties) {
      const names = namesOf(property, scope.prefix);
      for (const fact of available) {
        const score = this.score(fact.label, names) * fact.strength;
        if (score >= MATCH_THRESHOLD) pairs.push({ property, fact, score });
      }
    }
    pairs.sort((a, b) => b.score - a.score || a.fact.block - b.fact.block);
    const used = new Set<Fact>();
    for (const { property, fact } of pairs) {
      if (Object.hasOwn(out, property.name) || used.has(fact)) continue;
      const value = coerce(fact.value, property.shape, this.facts.habits);
      if (value === undefined) continue;
      putOwn(out, property.name, value);
      used.add(fact);
    }
  }

  /**
   * An e-mail address or a web address is recognisable without a label: a property of that
   * format nothing labels takes the first one its scope states (a résumé's header line).
   */
  private byFormat(shape: Shape, scope: Scope): JsonValue | undefined {
    if (shape.type !== 'string' || !shape.format || !['email', 'uri', 'url'].includes(shape.format))
      return undefined;
    for (let b = Math.max(scope.from, 0); b < scope.to; b++) {
      const block = this.facts.blocks[b]!;
      if (block.kind !== 'text') continue;
      const value = coerce(block.text, shape, this.facts.habits);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /** A list under a heading that names the property: its items, or its lines split at commas. */
  private listFromSection(p: Property, shape: Extract<Shape, { type: 'array' }>, scope: Scope) {
    const section = this.section(namesOf(p), scope);
    if (!section) return undefined;
    const texts: string[] = [];
    for (let b = section.block + 1; b < section.end; b++) {
      const block = this.facts.blocks[b]!;
      if (block.kind === 'heading') break;
      if (block.kind === 'text')
        texts.push(...(block.role === 'item' ? [block.text] : splitList(block.text)));
    }
    const values = texts.map((t) => coerce(t, shape.items, this.facts.habits)).filter((v) => v !== undefined);
    return values.length > 0 ? values : undefined;
  }

  /** A table column whose header names the property. */
  private listFromColumn(p: Property, shape: Extract<Shape, { type: 'array' }>, scope: Scope) {
    const names = namesOf(p);
    for (const table of this.facts.tables) {
      if (!this.inScope(table.block, scope)) continue;
      const column = table.header.findIndex((h) => this.score(h, names) >= MATCH_THRESHOLD);
      if (column < 0) continue;
      const values = table.rows
        .map((r) => coerce(r[column] ?? '', shape.items, this.facts.habits))
        .filter((v) => v !== undefined);
      if (values.length > 0) return values;
    }
    return undefined;
  }

  /** Columns to properties, best pairs first, each column used once. */
  private columns(item: ObjectShape, header: string[]): Map<Property, number> {
    const pairs: { property: Property; column: number; score: number }[] = [];
    for (const property of item.properties) {
      if (!isScalar(property.shape) && !isList(property.shape)) continue;
      const names = namesOf(property);
      header.forEach((cell, column) => {
        const score = this.score(cell, names);
        if (score >= MATCH_THRESHOLD) pairs.push({ property, column, score });
      });
    }
    pairs.sort((a, b) => b.score - a.score || a.column - b.column);
    const out = new Map<Property, number>();
    const used = new Set<number>();
    for (const { property, column } of pairs) {
      if (out.has(property) || used.has(column)) continue;
      out.set(property, column);
      used.add(column);
    }
    return out;
  }

  /** The heading a block sits under, nearest first. */
  private headingOf(block: number): string | undefined {
    let found: Section | undefined;
    for (const s of this.facts.sections) if (s.block < block && s.end > block) found = s;
    return found?.heading;
  }

  /**
   * Records from the table whose header names most of the item's properties (the heading above
   * it naming the array breaks ties), together with the tables that continue it (same header).
   * A row that fills fewer than half the matched columns is not a record: a subtotal or a note.
   */
  private fromTables(item: ObjectShape, names: Name[], scope: Scope): JsonObject[] | undefined {
    let best: { table: RecordTable; columns: Map<Property, number>; score: number } | undefined;
    for (const table of this.facts.tables) {
      if (!this.inScope(table.block, scope)) continue;
      const columns = this.columns(item, table.header);
      if (columns.size < Math.min(2, item.properties.length, table.header.length)) continue;
      const heading = this.headingOf(table.block);
      const score = columns.size + (heading && this.score(heading, names) >= MATCH_THRESHOLD ? 1 : 0);
      if (!best || score > best.score) best = { table, columns, score };
    }
    if (!best) return undefined;
    const signature = best.table.header.join('\u0000').toLowerCase();
    const rows = this.facts.tables
      .filter((t) => this.inScope(t.block, scope) && t.header.join('\u0000').toLowerCase() === signature)
      .flatMap((t) => t.rows);
    const records: JsonObject[] = [];
    const needed = Math.max(1, Math.ceil(best.columns.size / 2));
    for (const row of rows) {
      const record: JsonObject = {};
      for (const [property, column] of best.columns) {
        const value = coerce(row[column] ?? '', property.shape, this.facts.habits);
        if (value !== undefined) putOwn(record, property.name, value);
      }
      if (Object.keys(record).length >= needed) records.push(record);
    }
    return records;
  }

  /**
   * Records from the sub-sections of a section that names the array (a résumé's "Experience"
   * with one heading per job): each filled from its own labels, and from its heading's parts
   * ("Senior Engineer — Acme Corp (2019–2023)") for what those leave empty.
   */
  private fromSubsections(item: ObjectShape, names: Name[], scope: Scope): JsonObject[] | undefined {
    const parent = this.section(names, scope);
    if (!parent) return undefined;
    const inside = this.facts.sections.filter((s) => s.block > parent.block && s.block < parent.end);
    const level = Math.min(...inside.map((s) => s.level));
    const records: JsonObject[] = [];
    for (const child of inside.filter((s) => s.level === level)) {
      const record = this.object(item, { from: child.block, to: child.end, prefix: [] });
      fillFromParts(child.heading, item, record, this.facts.habits);
      if (Object.keys(record).length > 0) records.push(record);
    }
    if (records.length > 0) return records;
    // No sub-sections: one record per list item ("BSc Physics, University of Leeds, 2012").
    for (let b = parent.block + 1; b < parent.end; b++) {
      const block = this.facts.blocks[b]!;
      if (block.kind !== 'text' || block.role !== 'item') continue;
      const record: JsonObject = {};
      fillFromParts(block.text.split('\n')[0]!, item, record, this.facts.habits);
      if (Object.keys(record).length > 0) records.push(record);
    }
    return records.length > 0 ? records : undefined;
  }
}

const DATE_LIKE = /date|start|end|year|from|until|since/i;

/**
 * A heading's or an item's parts, between dashes, commas, "at" and parentheses, to the item's
 * string properties still empty, in the schema's order; a year to a year-like property. What is
 * left over is left out.
 */
function fillFromParts(text: string, item: ObjectShape, record: JsonObject, habits: Habits): void {
  const range = dateRange(text);
  const rest = range ? text.slice(0, range.at) + text.slice(range.at + range.length) : text;
  const parts = rest
    .split(/\s+[—–-]\s+|\s*[|@·•]\s*|,\s+|\s+at\s+|\s*[()]\s*/)
    .map((p) => p.trim())
    .filter(Boolean);
  const empty = item.properties.filter((p) => !Object.hasOwn(record, p.name));
  for (const part of parts) {
    const year = /^\d{4}$/.test(part);
    const target = empty.find((p) =>
      year
        ? DATE_LIKE.test(p.name) && p.shape.type !== 'boolean'
        : p.shape.type === 'string' && !p.shape.format && !p.shape.enum && !DATE_LIKE.test(p.name),
    );
    if (!target) continue;
    const value = coerce(part, target.shape, habits);
    if (value === undefined) continue;
    putOwn(record, target.name, value);
    empty.splice(empty.indexOf(target), 1);
  }
}

/** Every name the schema's properties go by, at any depth: what a label in the document may be. */
function allNames(shape: Shape, into: Name[] = []): Name[] {
  if (shape.type === 'array') allNames(shape.items, into);
  if (shape.type !== 'object') return into;
  for (const p of shape.properties) {
    into.push(...namesOf(p));
    allNames(p.shape, into);
  }
  return into;
}

/**
 * The document extracted into `schema`: an object (empty when nothing matched) for an object
 * schema, a list of records for an array-of-objects schema; undefined for a schema of another
 * kind, which a document's structure cannot fill.
 */
export function extractBySchema(
  schema: JsonObject,
  doc: Outline,
  metadata: Record<string, unknown>,
): JsonValue | undefined {
  const shape = shapeOf(schema, schema);
  const names = allNames(shape);
  const facts = readFacts(doc, metadata, (label) => matchScore(phrase(label), names));
  const whole: Scope = { from: -1, to: facts.blocks.length, prefix: [] };
  const extractor = new Extractor(facts);
  if (shape.type === 'object') return extractor.object(shape, whole);
  if (!recordsOf(shape)) return undefined;
  const wrapped = extractor.object(
    { type: 'object', properties: [{ name: 'items', title: undefined, description: undefined, shape }] },
    whole,
  );
  return Array.isArray(wrapped.items) ? wrapped.items : [];
}
