import { ConversionError } from '../converter.ts';
import { ByteReader } from '../doc/byte-reader.ts';
import { HEADER_SIZE, type RecordReader, RT } from './records.ts';

/**
 * Where the current version of each persistent object lives ([MS-PPT]): the Current User
 * stream names the newest UserEditAtom; each edit names its PersistDirectoryAtom and the edit
 * before it. Newer entries win. Saved-over ("fast saved") files keep old copies in the stream,
 * so offsets are only ever taken from this directory.
 */
export interface PersistDirectory {
  /** Persist id → stream offset of the object's record. */
  offsets: Map<number, number>;
  /** Persist id of the DocumentContainer. */
  docPersistId: number;
  /** Recovered damage worth a warning. */
  damage: string | undefined;
}

const HEADER_TOKEN_ENCRYPTED = 0xf3d1c4df;
/** UserEditAtom body: offsetLastEdit, offsetPersistDirectory, docPersistIdRef, encryptSessionPersistIdRef. */
const EDIT_LAST = 8;
const EDIT_DIRECTORY = 12;
const EDIT_DOC = 16;
const EDIT_CRYPT = 28;
const EDIT_MIN_SIZE = 0x1c;
export const ENCRYPTED_MESSAGE =
  'The presentation is password-protected (encrypted); remove the password and upload it again.';

/** The offset of the newest UserEditAtom, from the Current User stream. */
function currentEditOffset(currentUser: Uint8Array | undefined): number | undefined {
  if (!currentUser) return undefined;
  const r = new ByteReader(currentUser, 'Current User');
  if (!r.has(0, 20) || r.u16(2) !== RT.currentUserAtom) return undefined;
  if (r.u32(12) === HEADER_TOKEN_ENCRYPTED)
    throw new ConversionError('ENCRYPTED_DOCUMENT', ENCRYPTED_MESSAGE);
  return r.u32(16);
}

function isUserEdit(records: RecordReader, at: number): boolean {
  const r = records.r;
  return (
    r.has(at, HEADER_SIZE + EDIT_MIN_SIZE) &&
    r.u16(at + 2) === RT.userEditAtom &&
    r.u32(at + 4) >= EDIT_MIN_SIZE
  );
}

/**
 * Without a usable Current User stream, the newest edit is found by its header bytes: the
 * stream can hold gaps and stale copies, so a linear walk of records would not reach it.
 */
function findLastUserEdit(records: RecordReader): number | undefined {
  const bytes = records.r.bytes;
  for (let at = bytes.length - HEADER_SIZE - EDIT_MIN_SIZE; at >= 0; at--) {
    if (bytes[at + 2] === 0xf5 && bytes[at + 3] === 0x0f && bytes[at] === 0 && isUserEdit(records, at))
      return at;
  }
  return undefined;
}

/** Adds one PersistDirectoryAtom's entries that no newer edit has set. */
function readDirectory(records: RecordReader, at: number, offsets: Map<number, number>): void {
  const rec = records.at(at);
  if (!rec || rec.type !== RT.persistDirectoryAtom) throw new Error('not a persist directory');
  const r = records.r;
  let p = rec.body;
  while (p + 4 <= rec.end) {
    const entry = r.u32(p);
    const first = entry & 0xfffff;
    const count = entry >>> 20;
    p += 4;
    for (let i = 0; i < count && p + 4 <= rec.end; i++, p += 4) {
      if (!offsets.has(first + i)) offsets.set(first + i, r.u32(p));
    }
  }
}

export function readPersistDirectory(
  records: RecordReader,
  currentUser: Uint8Array | undefined,
): PersistDirectory {
  let damage: string | undefined;
  let edit = currentEditOffset(currentUser);
  if (edit === undefined || !isUserEdit(records, edit)) {
    edit = findLastUserEdit(records);
    damage = 'The Current User stream is missing or damaged; the newest saved edit was located by scanning.';
  }
  if (edit === undefined) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The presentation is truncated or damaged: it has no readable edit history (UserEditAtom), so its slides cannot be located.',
    );
  }
  const r = records.r;
  const offsets = new Map<number, number>();
  const docPersistId = r.u32(edit + HEADER_SIZE + EDIT_DOC);
  const cryptAt = edit + HEADER_SIZE + EDIT_CRYPT;
  const cryptRef = r.u32(edit + 4) >= EDIT_CRYPT + 4 && r.has(cryptAt, 4) ? r.u32(cryptAt) : 0;
  // Visited offsets end a cyclic chain; each edit is read once.
  const visited = new Set<number>();
  for (let at: number | undefined = edit; at !== undefined && !visited.has(at); ) {
    visited.add(at);
    if (!isUserEdit(records, at)) {
      damage = 'The presentation edit history is damaged; older edits were ignored.';
      break;
    }
    try {
      readDirectory(records, r.u32(at + HEADER_SIZE + EDIT_DIRECTORY), offsets);
    } catch (err) {
      if (err instanceof ConversionError) throw err;
      damage = 'A persist directory of the presentation is damaged; some objects may be missing.';
    }
    const last = r.u32(at + HEADER_SIZE + EDIT_LAST);
    at = last > 0 ? last : undefined;
  }
  if (cryptRef && offsets.has(cryptRef)) {
    const crypt = records.at(offsets.get(cryptRef)!);
    if (crypt?.type === RT.cryptSession10Container) {
      throw new ConversionError('ENCRYPTED_DOCUMENT', ENCRYPTED_MESSAGE);
    }
  }
  return { offsets, docPersistId, damage };
}
