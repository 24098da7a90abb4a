import CFB from 'cfb';
import { corpusFile } from './server.ts';

/** The corpus's PowerPoint 97-2003 deck with one of its streams changed in place by `edit`. */
export function editedPpt(stream: string, edit: (bytes: Buffer) => void): Uint8Array {
  const ole = CFB.read(Buffer.from(corpusFile('ppt/poi-basic_test_ppt_file.ppt').bytes), { type: 'buffer' });
  const bytes = Buffer.from(CFB.find(ole, stream)!.content as Uint8Array);
  edit(bytes);
  CFB.utils.cfb_del(ole, stream);
  CFB.utils.cfb_add(ole, `/${stream}`, bytes);
  return CFB.write(ole, { type: 'buffer' }) as Uint8Array;
}

/** The deck marked password-protected: its Current User stream's header token says the document stream is encrypted. */
export const lockedPpt = () => editedPpt('Current User', (stream) => stream.writeUInt32LE(0xf3d1c4df, 12));
